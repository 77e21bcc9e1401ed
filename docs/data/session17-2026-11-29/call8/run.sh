#!/usr/bin/env bash
# Session 17, call 8: ncu (--set full, no clock control) of one 4096³ BF16 launch (B row-major)
# of the default kernel with the TMA-store epilogue (`wgmma`) and with register stores
# (`wgmma_ds`), as session 16's call 5 did for the register stores: the details page of each.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
for s in wgmma wgmma_ds; do
  timeout 150 ncu --set full --clock-control none -k 'regex:wgmma_bf16_bn_128x256x64_s4$' -c 1 -o $O/$s \
    $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 1 --check-rows 1 --schedules $s 4096 > $O/ncu_$s.txt 2>&1
  echo "ncu $s rc $?" >> $O/log.txt
  ncu --import $O/$s.ncu-rep --page details --csv > $O/details_$s.csv 2> /dev/null
  rm -f $O/$s.ncu-rep
done
cd $OUT && tar cJf s17_call8.tar.xz w && rm -rf w
tar xJOf s17_call8.tar.xz w/log.txt
mkdir -p /tmp/x8 && tar -C /tmp/x8 -xJf s17_call8.tar.xz
python3 - <<'PY'
import csv
want = ['Duration', 'Elapsed Cycles', 'SM Frequency', 'Compute (SM) Throughput', 'Memory Throughput', 'Issue Slots Busy', 'No Eligible', 'Executed Ipc Active']
for s in ('wgmma', 'wgmma_ds'):
    rows = list(csv.DictReader(open(f'/tmp/x8/w/details_{s}.csv')))
    print('==', s, len(rows))
    for r in rows:
        n = r.get('Metric Name', '')
        if any(w in n for w in want) or 'Tensor' in n or 'tensor' in n:
            print(f"  {r.get('Section Name','')[:28]:28} {n[:48]:48} {r.get('Metric Unit',''):8} {r.get('Metric Value','')}")
PY
