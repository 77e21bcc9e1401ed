use std::sync::mpsc;

use super::*;

/// A port free on loopback a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

const LOOPBACK: &str = "127.0.0.1";

#[test]
fn ranks_on_loopback_get_rank_0s_payload_and_meet_at_barriers() {
    let (port, world) = (free_port(), 4);
    let payload: Vec<u8> = (0..128u8).collect();
    let peers: Vec<_> = (1..world)
        .map(|r| {
            thread::spawn(move || {
                let (got, mut c) = join(LOOPBACK, port, r, world, Duration::from_secs(20)).unwrap();
                c.barrier().unwrap();
                c.barrier().unwrap();
                c.done();
                got
            })
        })
        .collect();
    let mut c = serve(LOOPBACK, port, world, &payload, Duration::from_secs(20)).unwrap();
    c.barrier().unwrap();
    c.barrier().unwrap();
    c.done();
    for p in peers {
        assert_eq!(p.join().unwrap(), payload);
    }
}

#[test]
fn a_rank_that_never_connects_is_named_by_rank_0() {
    let (port, world) = (free_port(), 3);
    let peer =
        thread::spawn(move || join(LOOPBACK, port, 1, world, Duration::from_secs(20)).map(|_| ()));
    let err = serve(LOOPBACK, port, world, b"id", Duration::from_millis(1500))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("rank(s) 2 never connected") && !err.contains('\n'),
        "{err}"
    );
    // Rank 1 got the id before rank 0 gave up.
    assert!(peer.join().unwrap().is_ok());
}

#[test]
fn without_rank_0_a_rank_gives_up_after_its_timeout() {
    let port = free_port();
    let err = join(LOOPBACK, port, 1, 2, Duration::from_millis(800))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("rank 1 could not reach rank 0 at 127.0.0.1:"),
        "{err}"
    );
}

#[test]
fn a_rank_that_dies_after_the_exchange_fails_the_next_barrier_and_calls_the_hook() {
    let (port, world) = (free_port(), 3);
    let quitter = thread::spawn(move || {
        // Connects, then drops its end without saying it is done: as a rank that crashed.
        let (_, c) = join(LOOPBACK, port, 2, world, Duration::from_secs(20)).unwrap();
        drop(c);
    });
    let stayer = thread::spawn(move || {
        let (_, mut c) = join(LOOPBACK, port, 1, world, Duration::from_secs(20)).unwrap();
        c.barrier().err().map(|e| e.to_string())
    });
    let mut c = serve(LOOPBACK, port, world, b"id", Duration::from_secs(20)).unwrap();
    let (tx, rx) = mpsc::channel();
    c.on_lost(move |r| {
        let _ = tx.send(r);
    });
    quitter.join().unwrap();
    let err = c.barrier().unwrap_err().to_string();
    assert_eq!(err, "rank 2 stopped before a barrier");
    // The hook heard it (unless the loss came before the hook was set: then the barrier did).
    if let Ok(r) = rx.recv_timeout(Duration::from_millis(200)) {
        assert_eq!(r, 2);
    }
    // Rank 0 gives up: rank 1's barrier then fails too, with a sentence.
    drop(c);
    let e = stayer.join().unwrap().expect("rank 1's barrier fails");
    assert!(e.starts_with("rank 1 lost rank 0"), "{e}");
}
