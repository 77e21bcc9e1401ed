//! Where this process stands in a distributed job: its rank, the number of ranks, its GPU on
//! this host and where rank 0 listens, from the variables launchers set. The one parser of
//! them: `torchrun` and most launchers (`RANK`, `WORLD_SIZE`, `LOCAL_RANK`, `MASTER_ADDR`,
//! `MASTER_PORT`), Open MPI's `mpirun` (`OMPI_COMM_WORLD_RANK`, `_SIZE`, `_LOCAL_RANK`) and
//! Slurm's `srun` (`SLURM_PROCID`, `SLURM_NTASKS`, `SLURM_LOCALID`). Under `mpirun` and `srun`
//! rank 0's address still comes from `MASTER_ADDR` (and `MASTER_PORT`, default
//! [`DEFAULT_PORT`]), as with torchrun.
use anyhow::Result;

/// Rank 0's port when `MASTER_PORT` is not set (torchrun's default).
pub const DEFAULT_PORT: u16 = 29500;

/// Which launcher's variables gave the ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launcher {
    /// `RANK`, `WORLD_SIZE`, `LOCAL_RANK` (torchrun, `scripts/apsp-launch.sh`).
    Torchrun,
    /// `OMPI_COMM_WORLD_*` (Open MPI).
    OpenMpi,
    /// `SLURM_*` (srun).
    Slurm,
}

impl Launcher {
    /// The variables of rank, size and local rank, in that order.
    pub const fn variables(self) -> [&'static str; 3] {
        match self {
            Launcher::Torchrun => ["RANK", "WORLD_SIZE", "LOCAL_RANK"],
            Launcher::OpenMpi => [
                "OMPI_COMM_WORLD_RANK",
                "OMPI_COMM_WORLD_SIZE",
                "OMPI_COMM_WORLD_LOCAL_RANK",
            ],
            Launcher::Slurm => ["SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"],
        }
    }

    /// In the order they are looked for: the first whose size variable is set wins.
    pub const ALL: [Launcher; 3] = [Launcher::Torchrun, Launcher::OpenMpi, Launcher::Slurm];
}

/// This process's place in the job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    pub launcher: Launcher,
    pub rank: usize,
    pub world_size: usize,
    /// The GPU of this host this rank drives (its ordinal among the visible ones).
    pub local_rank: usize,
    /// Where rank 0 listens for the other ranks.
    pub master_addr: String,
    pub master_port: u16,
}

impl Ranks {
    /// From the process's environment; `None` when no launcher's variables are set.
    pub fn from_env() -> Result<Option<Ranks>> {
        Ranks::from_vars(|name| std::env::var(name).ok())
    }

    /// From variables looked up by `var`; one sentence naming the variable when one is
    /// missing or malformed.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Option<Ranks>> {
        let Some(launcher) = Launcher::ALL
            .into_iter()
            .find(|l| var(l.variables()[1]).is_some())
        else {
            return Ok(None);
        };
        let [rank_var, size_var, local_var] = launcher.variables();
        let number = |name: &str, required: bool| -> Result<Option<usize>> {
            match var(name) {
                None if required => {
                    crate::bad_input(format!("{size_var} is set but {name} is not"))
                }
                None => Ok(None),
                Some(v) => match v.trim().parse::<usize>() {
                    Ok(n) => Ok(Some(n)),
                    Err(_) => crate::bad_input(format!("{name}={v:?} is not a whole number")),
                },
            }
        };
        let world_size = number(size_var, true)?.unwrap_or(0);
        let rank = number(rank_var, true)?.unwrap_or(0);
        if world_size == 0 || rank >= world_size {
            return crate::bad_input(format!(
                "{rank_var}={rank} is not a rank of {size_var}={world_size} ranks"
            ));
        }
        // One rank per host without a local rank: its first GPU.
        let local_rank = number(local_var, false)?.unwrap_or(0);
        let master_addr = match var("MASTER_ADDR") {
            Some(a) if !a.trim().is_empty() => a.trim().to_string(),
            // One rank needs no rendezvous; several on one host may use loopback.
            _ if world_size == 1 => "127.0.0.1".to_string(),
            _ => {
                return crate::bad_input(format!(
                    "{size_var}={world_size} needs MASTER_ADDR, the address where rank 0 listens"
                ));
            }
        };
        let master_port = match var("MASTER_PORT") {
            None => DEFAULT_PORT,
            Some(p) => match p.trim().parse::<u16>() {
                Ok(port) if port > 0 => port,
                _ => return crate::bad_input(format!("MASTER_PORT={p:?} is not a port (1-65535)")),
            },
        };
        Ok(Some(Ranks {
            launcher,
            rank,
            world_size,
            local_rank,
            master_addr,
            master_port,
        }))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn parse(vars: &[(&str, &str)]) -> Result<Option<Ranks>> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Ranks::from_vars(|name| map.get(name).cloned())
    }

    #[test]
    fn each_launcher_is_read_with_torchrun_first() {
        assert_eq!(parse(&[]).unwrap(), None);
        let t = parse(&[
            ("RANK", "1"),
            ("WORLD_SIZE", "2"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "10.0.0.5"),
            ("MASTER_PORT", "1234"),
            ("OMPI_COMM_WORLD_SIZE", "8"),
        ])
        .unwrap()
        .unwrap();
        let expect = Ranks {
            launcher: Launcher::Torchrun,
            rank: 1,
            world_size: 2,
            local_rank: 1,
            master_addr: "10.0.0.5".into(),
            master_port: 1234,
        };
        assert_eq!(t, expect);
        let m = parse(&[
            ("OMPI_COMM_WORLD_RANK", "3"),
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node0"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            (
                m.launcher,
                m.rank,
                m.world_size,
                m.local_rank,
                m.master_port
            ),
            (Launcher::OpenMpi, 3, 4, 1, DEFAULT_PORT)
        );
        let s = parse(&[("SLURM_PROCID", "0"), ("SLURM_NTASKS", "1")])
            .unwrap()
            .unwrap();
        assert_eq!(
            (s.launcher, s.local_rank, s.master_addr.as_str()),
            (Launcher::Slurm, 0, "127.0.0.1")
        );
    }

    #[test]
    fn a_missing_or_malformed_variable_is_one_sentence_naming_it() {
        let cases: [(&[(&str, &str)], &str); 5] = [
            (
                &[("WORLD_SIZE", "2"), ("MASTER_ADDR", "h")],
                "WORLD_SIZE is set but RANK is not",
            ),
            (
                &[("WORLD_SIZE", "2"), ("RANK", "2"), ("MASTER_ADDR", "h")],
                "RANK=2 is not a rank",
            ),
            (
                &[("WORLD_SIZE", "two"), ("RANK", "0")],
                "WORLD_SIZE=\"two\" is not",
            ),
            (&[("WORLD_SIZE", "2"), ("RANK", "0")], "needs MASTER_ADDR"),
            (
                &[
                    ("WORLD_SIZE", "2"),
                    ("RANK", "0"),
                    ("MASTER_ADDR", "h"),
                    ("MASTER_PORT", "0"),
                ],
                "MASTER_PORT=\"0\" is not a port",
            ),
        ];
        for (vars, want) in cases {
            let err = parse(vars).unwrap_err().to_string();
            assert!(err.contains(want) && !err.contains('\n'), "{err}");
        }
    }
}
