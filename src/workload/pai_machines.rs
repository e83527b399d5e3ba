//! Reader for Alibaba PAI 2020's `pai_machine_spec.csv` (`machine,gpu_type,cap_cpu,cap_mem,cap_gpu`,
//! no header) as a cluster: machines grouped into pools of identical nodes.
//!
//! `cap_cpu` is cores, `cap_mem` GB (taken as GiB), `cap_gpu` the GPU count; `gpu_type`
//! `CPU` marks CPU-only machines. Identical machines (same type, CPU, memory and GPUs)
//! form one group, in order of first appearance; `gpufleet trace convert --from
//! pai_machines` writes the groups as scenario `[[pools]]` blocks to edit (prices are
//! left at 0 for the user to fill in). A list of more than [`MAX_NODES`] machines (the most
//! a cluster may have) stops with an error as it is read.

use super::csv_rows::{field, open};
use super::value::{parse_f64, parse_u64, plain_text};
use super::{BadRows, TraceError};
use crate::model::MAX_NODES;
use std::collections::hash_map::{Entry, HashMap};
use std::io::Read;
use std::path::Path;

/// Identical machines of a cluster: one future pool.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineGroup {
    /// GPU model (`CPU` for CPU-only machines).
    pub gpu_type: String,
    /// GPUs per machine.
    pub gpus: u32,
    /// CPU cores per machine.
    pub cpu_cores: f64,
    /// Memory per machine, GiB.
    pub mem_gib: f64,
    /// Number of machines.
    pub count: u32,
}

/// A cluster read from a machine list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MachineList {
    /// Groups of identical machines, in order of first appearance.
    pub groups: Vec<MachineGroup>,
    /// Rows skipped as bad (with skip-bad-rows).
    pub skipped_rows: u64,
}

impl MachineList {
    /// Machines in total.
    pub fn machines(&self) -> u64 {
        self.groups.iter().map(|g| g.count as u64).sum()
    }
    /// GPUs in total.
    pub fn gpus(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| g.count as u64 * g.gpus as u64)
            .sum()
    }

    /// The groups as scenario `[[pools]]` blocks (owned, price 0 to fill in). GPU types
    /// that gpufleet does not know need a `[[gpu_types]]` entry, listed first.
    pub fn to_pools_toml(&self) -> String {
        let mut out = String::from("# Pools from a machine list: one pool per group of identical machines.\n# Fill in price_per_node_hour, and each GPU type's speed (relative to the reference GPU,\n# H100 = 1.0; built-in types have defaults, others default to 1.0).\n");
        let mut seen: Vec<&str> = Vec::new();
        for g in &self.groups {
            if !seen.contains(&g.gpu_type.as_str()) {
                seen.push(&g.gpu_type);
                out.push_str(&format!("\n[[gpu_types]]\nname = {:?}\n", g.gpu_type));
            }
        }
        for (i, g) in self.groups.iter().enumerate() {
            out.push_str(&format!(
                "\n[[pools]]\nname = \"{}-{}\"\ngpu_type = {:?}\nkind = \"owned\"\nnodes = {}\ngpus_per_node = {}\ncpu_cores_per_node = {}\nmemory_gib_per_node = {}\nprice_per_node_hour = 0.0\n",
                g.gpu_type.to_lowercase(),
                i,
                g.gpu_type,
                g.count,
                g.gpus,
                g.cpu_cores,
                g.mem_gib
            ));
        }
        out
    }
}

/// Reads a PAI machine spec from `path`.
pub fn read_pai_machines(path: &Path, bad: BadRows) -> Result<MachineList, TraceError> {
    read_pai_machines_from(open(path)?, path, bad)
}

/// Reads a PAI machine spec from any reader (`path` names it in errors).
pub fn read_pai_machines_from<R: Read>(
    input: R,
    path: &Path,
    bad: BadRows,
) -> Result<MachineList, TraceError> {
    let mut list = MachineList::default();
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input);
    let mut rec = csv::StringRecord::new();
    // Each group's place in `list.groups` by (type, GPUs, CPU bits, memory bits), types
    // numbered in `types`: a search of the groups made a million distinct machines take
    // a trillion comparisons.
    let mut types: HashMap<String, u32> = HashMap::new();
    let mut index: HashMap<(u32, u32, u64, u64), usize> = HashMap::new();
    let mut machines = 0u32;
    // Each machine's name and group (a machine listed twice is refused at the end, as a
    // job id given twice is), and its line.
    let mut seen: Vec<String> = Vec::new();
    let mut group_of: Vec<usize> = Vec::new();
    let mut lines: Vec<u64> = Vec::new();
    const NAMES: [&str; 5] = ["machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"];
    loop {
        let line = rdr.position().line();
        let parsed: Result<(f64, f64, u32), (&str, String)> = match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) if rec.len() == 1 && field(&rec, 0).is_empty() => continue,
            Ok(true) if rec.len() != 5 => {
                Err(("", format!("{} fields, the machine spec has 5", rec.len())))
            }
            Ok(true) => (|| {
                if field(&rec, 0).is_empty() || field(&rec, 1).is_empty() {
                    return Err(("gpu_type", "missing value".to_string()));
                }
                // The GPU type is written into the pools' TOML and names; the machine
                // name only tells machines apart and is not checked.
                plain_text(field(&rec, 1)).map_err(|e| ("gpu_type", e.to_string()))?;
                let nonneg = |k: usize| match parse_f64(field(&rec, k)) {
                    Ok(x) if (0.0..1e9).contains(&x) => Ok(x),
                    Err(e) => Err((NAMES[k], e.to_string())),
                    Ok(_) => Err((
                        NAMES[k],
                        format!("{:?} is not a non-negative number", field(&rec, k)),
                    )),
                };
                let gpus = parse_u64(field(&rec, 4)).map_err(|e| (NAMES[4], e.to_string()))?;
                if gpus > 1024 {
                    return Err((
                        NAMES[4],
                        format!("{gpus} GPUs per machine is more than 1024"),
                    ));
                }
                Ok((nonneg(2)?, nonneg(3)?, gpus as u32))
            })(),
            Err(e) => {
                if let Some(f) = super::csv_rows::fatal(path, &e) {
                    return Err(f);
                }
                Err(("", e.to_string()))
            }
        };
        let (cpu, mem, gpus) = match parsed {
            Ok(v) => v,
            Err((column, reason)) => match bad {
                BadRows::Stop => {
                    return Err(TraceError::Row {
                        file: path.to_path_buf(),
                        row: line,
                        column: column.to_string(),
                        reason,
                    })
                }
                BadRows::Skip => {
                    list.skipped_rows += 1;
                    continue;
                }
            },
        };
        if machines >= MAX_NODES {
            return Err(TraceError::File {
                file: path.to_path_buf(),
                reason: format!(
                    "more than {MAX_NODES} machines (the most a cluster may have, as in a \
                     scenario's pools together); keep part of the machine list"
                ),
            });
        }
        machines += 1;
        let ty = field(&rec, 1);
        let t = match types.get(ty) {
            Some(&t) => t,
            None => {
                let t = types.len() as u32;
                types.insert(ty.to_string(), t);
                t
            }
        };
        // `+ 0.0` makes -0.0 and 0.0 one key, as `==` compared them.
        let key = (t, gpus, (cpu + 0.0).to_bits(), (mem + 0.0).to_bits());
        seen.push(field(&rec, 0).to_string());
        group_of.push(*index.get(&key).unwrap_or(&list.groups.len()));
        lines.push(line);
        match index.entry(key) {
            Entry::Occupied(e) => list.groups[*e.get()].count += 1,
            Entry::Vacant(e) => {
                e.insert(list.groups.len());
                list.groups.push(MachineGroup {
                    gpu_type: ty.to_string(),
                    gpus,
                    cpu_cores: cpu,
                    mem_gib: mem,
                    count: 1,
                });
            }
        }
    }
    let dropped = super::trace::refuse_repeats(
        &mut seen,
        |m| m.as_str(),
        &lines,
        bad,
        path,
        "machine",
        "machine name",
        &mut list.skipped_rows,
    )?;
    for i in dropped {
        list.groups[group_of[i]].count -= 1;
    }
    list.groups.retain(|g| g.count > 0);
    if list.groups.is_empty() {
        return Err(TraceError::File {
            file: path.to_path_buf(),
            reason: "no machines in the file".into(),
        });
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_identical_machines() {
        let t = "m1,T4,96,512,2\nm2,CPU,96,512,0\nm3,T4,96,512,2\n";
        let l = read_pai_machines_from(t.as_bytes(), Path::new("m.csv"), BadRows::Stop).unwrap();
        assert_eq!(l.groups.len(), 2);
        assert_eq!((l.machines(), l.gpus()), (3, 4));
        let toml = l.to_pools_toml();
        assert!(
            toml.contains("nodes = 2") && toml.contains("gpus_per_node = 2"),
            "{toml}"
        );
        let e = read_pai_machines_from(
            "m1,T4,96,x,2\n".as_bytes(),
            Path::new("m.csv"),
            BadRows::Stop,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("m.csv:1") && e.contains("cap_mem"), "{e}");
    }
}
