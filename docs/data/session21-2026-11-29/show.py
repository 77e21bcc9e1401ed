import json, sys, tarfile
t = tarfile.open(sys.argv[1])
for m in t.getmembers():
    if not m.name.endswith('.out') or 'signed' not in m.name and 'positive' not in m.name:
        continue
    d = json.load(t.extractfile(m))
    print('==', m.name)
    for r in d['results']:
        for k in r['ceilings']:
            s = k['sustained_ceiling']
            print(' ', k['peak'], '%.4e' % k['ceiling']['updates_per_s'], s and '%.4e' % s['updates_per_s'])
        for v in r['variants']:
            print('  %-26s %.4f %s %.1f%% of %s' % (v['variant'], v['median_s'], [round(x, 4) for x in v['runs_s']], v['percent_of_ceiling'], v['peak']),
                  v['reweight'], v['max_abs_diff_to_first'])
