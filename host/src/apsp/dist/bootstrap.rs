//! The ranks of a multi-process solve find each other over TCP (std only, no CUDA): rank 0
//! listens at `MASTER_ADDR:MASTER_PORT`, every other rank connects (retrying until rank 0 is
//! up, within a timeout) and says who it is, and rank 0 answers each with the same payload
//! (NCCL's unique id). The connections then stay open as the job's control channel: barriers,
//! and the news that a rank died, which is a connection closed before the rank said it was
//! done. Every failure is one sentence naming the rank and the address.
use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs},
    sync::{
        Arc, Mutex,
        mpsc::{Receiver, Sender, channel},
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::{Context as _, Result, anyhow, bail};

/// Marks this protocol's hello, so that a stray connection is refused rather than misread.
const MAGIC: [u8; 4] = *b"RGK1";
/// Control messages after the hello.
const BARRIER: u8 = b'B';
const DONE: u8 = b'D';

/// What a peer's connection said, as the control thread of that connection reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Barrier(usize),
    Done(usize),
    /// The connection closed (or failed) before the peer said it was done.
    Lost(usize),
}

/// One rank's end of the control channel.
pub struct Control {
    pub rank: usize,
    pub world_size: usize,
    /// Rank 0: one connection per other rank (index rank - 1); others: the one to rank 0.
    links: Vec<TcpStream>,
    events: Receiver<Event>,
    on_lost: Hook,
}

/// What to do the moment a rank is lost (the solver's watchdog: abort NCCL, remove the
/// partial output, exit with one sentence), called from the connection's thread.
type Hook = Arc<Mutex<Option<Box<dyn Fn(usize) + Send>>>>;

fn resolve(addr: &str, port: u16) -> Result<SocketAddr> {
    (addr, port)
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve MASTER_ADDR {addr}"))?
        .next()
        .ok_or_else(|| anyhow!("MASTER_ADDR {addr} resolves to no address"))
}

/// Rank 0: listens, takes one hello from each other rank within `timeout`, and sends each the
/// `payload`. Returns the control channel.
pub fn serve(
    addr: &str,
    port: u16,
    world_size: usize,
    payload: &[u8],
    timeout: Duration,
) -> Result<Control> {
    let at = resolve(addr, port)?;
    let listener =
        TcpListener::bind(at).with_context(|| format!("rank 0 cannot listen on {at}"))?;
    listener.set_nonblocking(true)?;
    let deadline = Instant::now() + timeout;
    let mut links: Vec<Option<TcpStream>> = (1..world_size).map(|_| None).collect();
    while links.iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut s, _)) => {
                s.set_nonblocking(false)?;
                s.set_read_timeout(Some(
                    deadline
                        .saturating_duration_since(Instant::now())
                        .max(Duration::from_millis(1)),
                ))?;
                let mut hello = [0u8; 8];
                if s.read_exact(&mut hello).is_err() || hello[..4] != MAGIC {
                    continue; // not one of ours
                }
                let r = u32::from_le_bytes(hello[4..].try_into().unwrap()) as usize;
                if r == 0 || r >= world_size || links[r - 1].is_some() {
                    bail!(
                        "rank 0 on {at} got a hello from rank {r}, which is not an expected rank of {world_size}"
                    );
                }
                s.write_all(&(payload.len() as u32).to_le_bytes())?;
                s.write_all(payload)?;
                s.set_read_timeout(None)?;
                links[r - 1] = Some(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = links
                        .iter()
                        .enumerate()
                        .filter(|(_, l)| l.is_none())
                        .map(|(i, _)| (i + 1).to_string())
                        .collect();
                    bail!(
                        "rank 0 waited {:.0} s on {at} and rank(s) {} never connected",
                        timeout.as_secs_f64(),
                        missing.join(", ")
                    );
                }
                thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e).with_context(|| format!("rank 0 accepting on {at}")),
        }
    }
    let links: Vec<TcpStream> = links.into_iter().map(Option::unwrap).collect();
    Control::start(0, world_size, links)
}

/// Rank `rank` > 0: connects to rank 0 (retrying until `timeout`), says hello and receives the
/// payload. Returns it and the control channel.
pub fn join(
    addr: &str,
    port: u16,
    rank: usize,
    world_size: usize,
    timeout: Duration,
) -> Result<(Vec<u8>, Control)> {
    let at = resolve(addr, port)?;
    let deadline = Instant::now() + timeout;
    let mut s = loop {
        match TcpStream::connect_timeout(&at, Duration::from_millis(500)) {
            Ok(s) => break s,
            Err(_) if Instant::now() < deadline => thread::sleep(Duration::from_millis(50)),
            Err(e) => bail!(
                "rank {rank} could not reach rank 0 at {at} within {:.0} s ({e})",
                timeout.as_secs_f64()
            ),
        }
    };
    s.set_read_timeout(Some(
        deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1)),
    ))?;
    let mut hello = MAGIC.to_vec();
    hello.extend((rank as u32).to_le_bytes());
    let lost =
        |e: std::io::Error| anyhow!("rank {rank} lost rank 0 at {at} during the rendezvous ({e})");
    s.write_all(&hello).map_err(lost)?;
    let mut len = [0u8; 4];
    s.read_exact(&mut len).map_err(lost)?;
    let mut payload = vec![0u8; u32::from_le_bytes(len) as usize];
    s.read_exact(&mut payload).map_err(lost)?;
    s.set_read_timeout(None)?;
    Ok((payload, Control::start(rank, world_size, vec![s])?))
}

impl Control {
    /// Starts one thread per connection that turns its bytes into [`Event`]s.
    fn start(rank: usize, world_size: usize, links: Vec<TcpStream>) -> Result<Control> {
        let (tx, events) = channel();
        let on_lost: Hook = Arc::default();
        for (i, link) in links.iter().enumerate() {
            let peer = if rank == 0 { i + 1 } else { 0 };
            let (reader, tx): (TcpStream, Sender<Event>) = (link.try_clone()?, tx.clone());
            let hook = on_lost.clone();
            thread::spawn(move || watch(reader, peer, tx, hook));
        }
        Ok(Control {
            rank,
            world_size,
            links,
            events,
            on_lost,
        })
    }

    /// Every rank waits here until all have arrived: the others tell rank 0, which answers
    /// once it has heard from all. Fails with one sentence when a rank is lost meanwhile.
    pub fn barrier(&mut self) -> Result<()> {
        if self.rank == 0 {
            let mut seen = vec![false; self.world_size];
            seen[0] = true;
            while seen.iter().any(|s| !s) {
                match self.next()? {
                    Event::Barrier(r) => seen[r] = true,
                    Event::Done(r) | Event::Lost(r) => bail!("rank {r} stopped before a barrier"),
                }
            }
            for l in &mut self.links {
                l.write_all(&[BARRIER])
                    .map_err(|e| anyhow!("a rank left during a barrier ({e})"))?;
            }
        } else {
            self.links[0]
                .write_all(&[BARRIER])
                .map_err(|e| anyhow!("rank {} lost rank 0 ({e})", self.rank))?;
            match self.next()? {
                Event::Barrier(_) => {}
                _ => bail!(
                    "rank {} lost rank 0, which stopped before a barrier",
                    self.rank
                ),
            }
        }
        Ok(())
    }

    fn next(&self) -> Result<Event> {
        self.events
            .recv()
            .map_err(|_| anyhow!("every control connection of rank {} is closed", self.rank))
    }

    /// Says that this rank finished cleanly: its connections may close now.
    pub fn done(&mut self) {
        for l in &mut self.links {
            let _ = l.write_all(&[DONE]);
        }
    }

    /// Calls `f` with the rank the moment a connection is lost (from then on; a loss
    /// before this call is found by the next barrier).
    pub fn on_lost(&self, f: impl Fn(usize) + Send + 'static) {
        *self.on_lost.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(f));
    }
}

impl Drop for Control {
    /// Closes the connections for the peers now (the reading threads hold duplicates of the
    /// sockets, which would keep them open), after unhooking: this rank's own close is no loss.
    fn drop(&mut self) {
        *self.on_lost.lock().unwrap_or_else(|p| p.into_inner()) = None;
        for l in &self.links {
            let _ = l.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// Reads one peer's control bytes until its connection ends.
fn watch(mut s: TcpStream, peer: usize, tx: Sender<Event>, hook: Hook) {
    let mut byte = [0u8; 1];
    loop {
        let event = match s.read(&mut byte) {
            Ok(1) if byte[0] == BARRIER => Event::Barrier(peer),
            Ok(1) if byte[0] == DONE => {
                let _ = tx.send(Event::Done(peer));
                return;
            }
            _ => {
                if let Some(f) = hook.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                    f(peer);
                }
                let _ = tx.send(Event::Lost(peer));
                return;
            }
        };
        if tx.send(event).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests;
