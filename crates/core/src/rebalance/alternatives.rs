//! Fixed points beyond the greedy prefixes: when Pulsar's shedding would not leave any prefix of
//! the greedy proposal alone, a few steered re-searches are tried, read off what the leader would
//! shed: another destination for a move Pulsar takes back, the proposal never touching a bundle
//! Pulsar re-sheds, the proposal moving the bundle Pulsar would shed itself (so Pulsar has nothing
//! left to do), and a stricter goal of the same metric (halfway to an even cluster). The list is
//! deterministic and bounded ([`MAX_ALTERNATIVES`]); the caller checks each against the leader
//! and keeps the cheapest fixed point (fewest moves, then fewest bytes).

use super::goal::Goal;
use super::search::{Hints, Step};
use super::stick::StickCheck;

/// At most this many re-searches (each costs one search and one leader check).
pub const MAX_ALTERNATIVES: usize = 4;

/// One re-search to try: plain words for the notes, the steering and the goal it searches toward.
#[derive(Clone, Debug, PartialEq)]
pub struct Alternative {
    pub description: String,
    pub hints: Hints,
    pub goal: Goal,
}

/// The alternatives worth trying after `check` of the greedy proposal `steps`, in a fixed order.
pub fn alternatives(steps: &[Step], check: &StickCheck, goal: &Goal) -> Vec<Alternative> {
    let mut out: Vec<Alternative> = Vec::new();
    let mut push = |a: Alternative| {
        if out.len() < MAX_ALTERNATIVES
            && !out.iter().any(|o| o.hints == a.hints && o.goal == a.goal)
        {
            out.push(a);
        }
    };
    for u in &check.would_move {
        match steps.iter().find(|s| s.bundle == u.bundle) {
            // Pulsar takes back a move of the proposal: another destination, or leave it be.
            Some(s) => {
                push(Alternative {
                    description: format!("{} to a broker other than {}", s.bundle, s.to),
                    hints: Hints {
                        forbid: vec![(s.bundle.clone(), s.to.clone())],
                        ..Hints::default()
                    },
                    goal: *goal,
                });
                push(Alternative {
                    description: format!("{} left where it is", s.bundle),
                    hints: Hints {
                        exclude: vec![s.bundle.clone()],
                        ..Hints::default()
                    },
                    goal: *goal,
                });
            }
            // Pulsar sheds a bundle the proposal left alone: move it in the proposal instead.
            None => push(Alternative {
                description: format!("{} moved off {} first", u.bundle, u.from),
                hints: Hints {
                    first: Some(u.bundle.clone()),
                    ..Hints::default()
                },
                goal: *goal,
            }),
        }
    }
    let stricter = stricter(goal);
    push(Alternative {
        description: format!("the stricter goal {stricter}"),
        hints: Hints::default(),
        goal: stricter,
    });
    out
}

/// The same metric halfway to an even cluster (max/mean 1, std 0); `max<=X%` has no even value of
/// its own, so it tightens by a tenth.
pub fn stricter(goal: &Goal) -> Goal {
    match *goal {
        Goal::MaxOverMean(l) => Goal::MaxOverMean(1.0 + (l - 1.0) / 2.0),
        Goal::StdPercent(l) => Goal::StdPercent(l / 2.0),
        Goal::MaxPercent(l) => Goal::MaxPercent(l * 0.9),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stricter_goals_are_halfway_to_even() {
        let close = |g: Goal, want: f64| (g.limit() - want).abs() < 1e-12;
        assert!(close(stricter(&Goal::MaxOverMean(1.6)), 1.3));
        assert!(close(stricter(&Goal::StdPercent(5.0)), 2.5));
        assert!(close(stricter(&Goal::MaxPercent(80.0)), 72.0));
        assert!(matches!(
            stricter(&Goal::StdPercent(5.0)),
            Goal::StdPercent(_)
        ));
    }
}
