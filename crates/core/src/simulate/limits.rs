//! The sizes a simulation accepts, in one place: the CLI, the scenario parser, the dashboard's
//! simulate panel and the worker all read them from here. A run keeps every cycle's metrics in
//! memory (plus every broker's usage and every ownership change when asked), so the number of
//! cycles bounds its memory; events are bounded so a scenario file cannot ask for unbounded work.

use super::error::ScenarioError;

/// The most cycles one run simulates (the dashboard's panel offers 1 to this).
pub const MAX_CYCLES: u32 = 100_000;

/// The seed a simulation runs with unless one is given: the CLI's `--seed` default and the
/// dashboard's initial seed, so the same cluster gives the same numbers in both.
pub const DEFAULT_SEED: u64 = 0;

/// The most events a scenario may schedule.
pub const MAX_EVENTS: usize = 100_000;

/// The allowed number of cycles, as messages state it.
pub fn cycles_range_text() -> String {
    format!("1 to {MAX_CYCLES}")
}

/// `cycles` if a run may simulate that many; otherwise an error at `path` stating the range.
pub fn check_cycles(cycles: u32, path: &str) -> Result<u32, ScenarioError> {
    if (1..=MAX_CYCLES).contains(&cycles) {
        Ok(cycles)
    } else {
        Err(ScenarioError::malformed(
            path,
            format!(
                "{cycles} cycles: a simulation runs {} cycles",
                cycles_range_text()
            ),
        ))
    }
}

/// An error at `path` when a scenario schedules more than [`MAX_EVENTS`] events.
pub fn check_events(count: usize, path: &str) -> Result<(), ScenarioError> {
    if count <= MAX_EVENTS {
        Ok(())
    } else {
        Err(ScenarioError::malformed(
            path,
            format!("{count} events: a scenario schedules at most {MAX_EVENTS}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_inclusive_and_the_message_states_the_range() {
        assert_eq!(check_cycles(1, "$.cycles"), Ok(1));
        assert_eq!(check_cycles(100_000, "$.cycles"), Ok(100_000));
        for bad in [0, 100_001, u32::MAX] {
            match check_cycles(bad, "$.cycles") {
                Err(ScenarioError::Malformed { path, message }) => {
                    assert_eq!(path, "$.cycles");
                    assert!(message.contains("1 to 100000"), "{message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert!(check_events(100_000, "$.events").is_ok());
        assert!(check_events(100_001, "$.events").is_err());
    }
}
