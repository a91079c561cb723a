//! What the History view's lanes are coloured by. One hue per owner reads on a dozen brokers and is
//! noise on a hundred, so past [`OWNER_HUES_UP_TO`] owners the default shows what the question is
//! about: the bundles that moved during the series against those that stayed; or one broker picked
//! against the rest. Load stays the shading in every mode.

use std::collections::{HashMap, HashSet};

use super::palette::{broker_colour, shade};
use super::timeline::{Cell, Lane, Timeline};

/// The most owners the default colours by owner.
pub const OWNER_HUES_UP_TO: usize = 12;

/// A bundle range that had more than one owner during the series.
const MOVED_RGB: [u8; 3] = [214, 96, 36];
/// A bundle range that kept its owner (and, picking a broker, another broker's bundle).
const STAYED_RGB: [u8; 3] = [128, 134, 146];

/// How lane cells are coloured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneColouring {
    /// Each owner its stable colour (`palette::broker_colour`).
    Owner,
    /// Moved (a range with more than one owner in the series) against stayed.
    Moved,
    /// The cells this broker owns in its colour, the rest grey.
    Broker(String),
}

impl LaneColouring {
    /// By owner while the series has few enough owners to tell apart, else moved vs stayed.
    pub fn default_for(t: &Timeline) -> Self {
        if t.brokers.len() <= OWNER_HUES_UP_TO {
            Self::Owner
        } else {
            Self::Moved
        }
    }

    /// The value a `<select>` carries: `owner`, `moved`, `broker:ID`.
    pub fn key(&self) -> String {
        match self {
            Self::Owner => "owner".to_string(),
            Self::Moved => "moved".to_string(),
            Self::Broker(id) => format!("broker:{id}"),
        }
    }

    /// What the colours mean, for the view's legend.
    pub fn legend(&self) -> String {
        match self {
            Self::Owner => "colour = owning broker".to_string(),
            Self::Moved => {
                "orange = a bundle that changed owner during the series, grey = one that stayed"
                    .to_string()
            }
            Self::Broker(id) => format!("coloured = owned by {id}, grey = other brokers"),
        }
    }

    /// The colouring a [`Self::key`] names (`owner` for anything else).
    pub fn from_key(key: &str) -> Self {
        match key {
            "moved" => Self::Moved,
            _ => key
                .strip_prefix("broker:")
                .map_or(Self::Owner, |id| Self::Broker(id.to_string())),
        }
    }
}

/// The colours of one lane's cells under a colouring: built once per lane and colouring.
pub struct LanePainter<'a> {
    timeline: &'a Timeline,
    colouring: &'a LaneColouring,
    /// Ranges `(lo, hi)` with more than one owner in this lane (only for [`LaneColouring::Moved`]).
    moved: HashSet<(u32, u32)>,
    /// The picked broker's index in `timeline.brokers` (only for [`LaneColouring::Broker`]).
    picked: Option<u32>,
}

impl<'a> LanePainter<'a> {
    pub fn new(timeline: &'a Timeline, lane: &Lane, colouring: &'a LaneColouring) -> Self {
        let mut moved = HashSet::new();
        if *colouring == LaneColouring::Moved {
            let mut first_owner: HashMap<(u32, u32), u32> = HashMap::new();
            for c in &lane.cells {
                let owner = *first_owner.entry((c.lo, c.hi)).or_insert(c.owner);
                if owner != c.owner {
                    moved.insert((c.lo, c.hi));
                }
            }
        }
        let picked = match colouring {
            LaneColouring::Broker(id) => timeline
                .brokers
                .iter()
                .position(|b| b == id)
                .and_then(|i| u32::try_from(i).ok()),
            _ => None,
        };
        Self {
            timeline,
            colouring,
            moved,
            picked,
        }
    }

    /// The cell's colour (RGB), shaded by its load.
    pub fn colour(&self, cell: &Cell) -> [u8; 3] {
        let base = match self.colouring {
            LaneColouring::Owner => broker_colour(
                self.timeline
                    .brokers
                    .get(cell.owner as usize)
                    .map_or("", String::as_str),
            ),
            LaneColouring::Moved if self.moved.contains(&(cell.lo, cell.hi)) => MOVED_RGB,
            LaneColouring::Moved => STAYED_RGB,
            LaneColouring::Broker(id) if self.picked == Some(cell.owner) => broker_colour(id),
            LaneColouring::Broker(_) => STAYED_RGB,
        };
        shade(base, cell.load_share())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(from: u32, to: u32, lo: u32, owner: u32) -> Cell {
        Cell {
            from,
            to,
            lo,
            hi: lo + 10,
            owner,
            shade: 4,
        }
    }

    /// Range 0 moves from broker a to b, range 10 stays on a: moved vs stayed tells them apart,
    /// picking b colours only b's cell, and the default follows the number of owners.
    #[test]
    fn moved_stayed_and_a_picked_broker() {
        let lane = Lane {
            namespace: "t/n".into(),
            cells: vec![cell(0, 3, 0, 0), cell(3, 6, 0, 1), cell(0, 6, 10, 0)],
        };
        let t = Timeline {
            times_ms: (0..6).collect(),
            brokers: vec!["a:8080".into(), "b:8080".into()],
            lanes: vec![lane.clone()],
        };
        let moved = LaneColouring::Moved;
        let p = LanePainter::new(&t, &lane, &moved);
        let colours: Vec<[u8; 3]> = lane.cells.iter().map(|c| p.colour(c)).collect();
        assert_eq!(colours, vec![MOVED_RGB, MOVED_RGB, STAYED_RGB]);
        let b = LaneColouring::Broker("b:8080".into());
        let p = LanePainter::new(&t, &lane, &b);
        let colours: Vec<[u8; 3]> = lane.cells.iter().map(|c| p.colour(c)).collect();
        assert_eq!(
            colours,
            vec![STAYED_RGB, broker_colour("b:8080"), STAYED_RGB]
        );
        assert_eq!(LaneColouring::default_for(&t), LaneColouring::Owner);
        let many = Timeline {
            brokers: (0..13).map(|i| format!("b{i}:8080")).collect(),
            ..t
        };
        assert_eq!(LaneColouring::default_for(&many), LaneColouring::Moved);
        for c in [LaneColouring::Owner, moved, b] {
            assert_eq!(LaneColouring::from_key(&c.key()), c);
        }
    }
}
