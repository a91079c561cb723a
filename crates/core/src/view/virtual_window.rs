//! Scroll virtualisation's arithmetic: which rows of a long list of fixed-height rows a scroll
//! container shows (plus an overscan on each side), how tall the spacers above and below them are,
//! where the keyboard's PageUp / PageDown / Home / End and "reveal row i" scroll to. The dashboard's
//! `VirtualRows` renders only the rows in [`Window::first`]..[`Window::end`], so a list of 200,000
//! rows keeps a few dozen in the DOM.

/// The rows to render for one scroll position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// The first row rendered (0-based).
    pub first: usize,
    /// One past the last row rendered (`first..end`; `first == end` for an empty list).
    pub end: usize,
    /// Height of the spacer above the rendered rows, px (`first` rows).
    pub before_px: u64,
    /// Height of the spacer below them, px (`total - end` rows).
    pub after_px: u64,
}

impl Window {
    pub fn len(&self) -> usize {
        self.end - self.first
    }

    pub fn is_empty(&self) -> bool {
        self.first == self.end
    }
}

/// The height of `total` rows of `row_height` px.
pub fn total_px(total: usize, row_height: u32) -> u64 {
    total as u64 * u64::from(row_height)
}

/// The largest scroll offset a viewport of `viewport` px can have over `total` rows.
pub fn max_scroll(total: usize, row_height: u32, viewport: f64) -> f64 {
    (total_px(total, row_height) as f64 - viewport.max(0.0)).max(0.0)
}

/// The rows a viewport of `viewport` px scrolled to `scroll_top` px shows, widened by `overscan`
/// rows each side and clamped to `0..total`; `first` is rounded down to an even row, so a list
/// striped by position (`nth-child`) keeps each row's stripe as it scrolls. A scroll offset past the end (a list that shrank
/// under it) shows the last rows; a negative or non-finite one shows the first; a zero row height
/// or viewport shows at least one row (and the overscan) so the list is never blank.
pub fn window(
    total: usize,
    row_height: u32,
    scroll_top: f64,
    viewport: f64,
    overscan: usize,
) -> Window {
    if total == 0 {
        return Window {
            first: 0,
            end: 0,
            before_px: 0,
            after_px: 0,
        };
    }
    let row = f64::from(row_height.max(1));
    let viewport = if viewport.is_finite() {
        viewport.max(0.0)
    } else {
        0.0
    };
    let top = if scroll_top.is_finite() {
        scroll_top.clamp(0.0, max_scroll(total, row_height.max(1), viewport))
    } else {
        0.0
    };
    // Rows intersecting [top, top + viewport): the first one the top edge is in, through the one
    // the bottom edge is in.
    let first_visible = ((top / row).floor() as usize).min(total - 1);
    let visible = ((top + viewport) / row).ceil() as usize;
    let last_visible = visible.clamp(first_visible + 1, total);
    let first = first_visible.saturating_sub(overscan) & !1;
    let end = last_visible.saturating_add(overscan).min(total);
    Window {
        first,
        end,
        before_px: total_px(first, row_height),
        after_px: total_px(total - end, row_height),
    }
}

/// A key that scrolls a focused list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScrollKey {
    PageUp,
    PageDown,
    Home,
    End,
}

impl ScrollKey {
    /// `KeyboardEvent.key`'s name of the key (`None` for any other key).
    pub fn parse(key: &str) -> Option<Self> {
        match key {
            "PageUp" => Some(ScrollKey::PageUp),
            "PageDown" => Some(ScrollKey::PageDown),
            "Home" => Some(ScrollKey::Home),
            "End" => Some(ScrollKey::End),
            _ => None,
        }
    }
}

/// Where `key` scrolls a viewport of `viewport` px at `scroll_top`: a page is the viewport less
/// one row (the row at the edge stays in view), at least one row; clamped to the list.
pub fn scroll_for_key(
    key: ScrollKey,
    total: usize,
    row_height: u32,
    scroll_top: f64,
    viewport: f64,
) -> f64 {
    let max = max_scroll(total, row_height, viewport);
    let page = (viewport - f64::from(row_height)).max(f64::from(row_height));
    let top = if scroll_top.is_finite() {
        scroll_top
    } else {
        0.0
    };
    match key {
        ScrollKey::PageUp => (top - page).clamp(0.0, max),
        ScrollKey::PageDown => (top + page).clamp(0.0, max),
        ScrollKey::Home => 0.0,
        ScrollKey::End => max,
    }
}

/// The scroll offset that brings row `index` fully into view with the least movement (`None` when
/// it already is, or the list has no such row).
pub fn scroll_to_reveal(
    index: usize,
    total: usize,
    row_height: u32,
    scroll_top: f64,
    viewport: f64,
) -> Option<f64> {
    if index >= total {
        return None;
    }
    let row = f64::from(row_height);
    let top = index as f64 * row;
    let bottom = top + row;
    if top < scroll_top {
        Some(top)
    } else if bottom > scroll_top + viewport {
        Some((bottom - viewport).clamp(0.0, max_scroll(total, row_height, viewport)))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_of_a_long_list_renders_the_viewport_and_the_overscan_below() {
        // 200,000 rows of 28 px in a 420 px viewport: 15 rows visible, 10 more below.
        let w = window(200_000, 28, 0.0, 420.0, 10);
        assert_eq!((w.first, w.end), (0, 25));
        assert_eq!(w.before_px, 0);
        assert_eq!(w.after_px, (200_000 - 25) * 28);
        assert_eq!(w.len(), 25);
    }

    #[test]
    fn a_scrolled_window_covers_partly_visible_rows_and_the_overscan_both_sides() {
        // Overscan 4 from row 35 would start at 31: the window starts at the even row 30.
        assert_eq!(window(1_000, 28, 1_000.0, 420.0, 4).first, 30);
        // scrollTop 1,000 px: row 35 (980..1,008) is the first visible, row 50 (1,400..1,428) the
        // last one the bottom edge (1,420) touches.
        let w = window(1_000, 28, 1_000.0, 420.0, 5);
        assert_eq!((w.first, w.end), (30, 56));
        assert_eq!(w.before_px, 30 * 28);
        assert_eq!(w.after_px, (1_000 - 56) * 28);
        // The spacers and the rows always add up to the whole list's height.
        assert_eq!(
            w.before_px + w.len() as u64 * 28 + w.after_px,
            total_px(1_000, 28)
        );
    }

    #[test]
    fn the_end_of_the_list_and_offsets_past_it_show_the_last_rows() {
        let end = max_scroll(200_000, 28, 420.0);
        assert_eq!(end, 200_000.0 * 28.0 - 420.0);
        let w = window(200_000, 28, end, 420.0, 10);
        assert_eq!(w.end, 200_000);
        assert_eq!(w.after_px, 0);
        // 200,000 - 15 - 10 = 199,975, rounded down to an even row.
        assert_eq!(w.first, 199_974);
        // A list that shrank under its scroll offset: the last rows, not an empty window.
        assert_eq!(
            window(20, 28, 1e9, 420.0, 2),
            window(20, 28, 20.0 * 28.0 - 420.0, 420.0, 2)
        );
        assert_eq!(window(20, 28, 1e9, 420.0, 2).end, 20);
    }

    #[test]
    fn short_lists_render_whole_and_odd_inputs_are_clamped() {
        // Fewer rows than the viewport holds: all of them, no spacer.
        let w = window(12, 32, 0.0, 480.0, 10);
        assert_eq!((w.first, w.end, w.before_px, w.after_px), (0, 12, 0, 0));
        assert!(window(0, 28, 100.0, 420.0, 10).is_empty());
        // Negative or non-finite offsets read as the top.
        assert_eq!(window(100, 28, -50.0, 420.0, 0).first, 0);
        assert_eq!(window(100, 28, f64::NAN, 420.0, 0).first, 0);
        // A viewport not measured yet (0 px) still shows a row and the overscan.
        assert_eq!(
            window(100, 28, 0.0, 0.0, 3),
            Window {
                first: 0,
                end: 4,
                before_px: 0,
                after_px: 96 * 28
            }
        );
        // A zero row height is read as 1 px rather than dividing by zero.
        assert_eq!(window(10, 0, 0.0, 5.0, 0).end, 5);
    }

    #[test]
    fn keys_scroll_a_page_less_a_row_and_clamp() {
        let (n, h, vp) = (1_000, 28, 420.0);
        assert_eq!(ScrollKey::parse("PageDown"), Some(ScrollKey::PageDown));
        assert_eq!(ScrollKey::parse("ArrowDown"), None);
        assert_eq!(scroll_for_key(ScrollKey::PageDown, n, h, 0.0, vp), 392.0);
        assert_eq!(scroll_for_key(ScrollKey::PageUp, n, h, 392.0, vp), 0.0);
        assert_eq!(scroll_for_key(ScrollKey::PageUp, n, h, 100.0, vp), 0.0);
        assert_eq!(
            scroll_for_key(ScrollKey::End, n, h, 0.0, vp),
            28_000.0 - 420.0
        );
        assert_eq!(
            scroll_for_key(ScrollKey::PageDown, n, h, 27_500.0, vp),
            28_000.0 - 420.0
        );
        assert_eq!(scroll_for_key(ScrollKey::Home, n, h, 5_000.0, vp), 0.0);
        // A viewport shorter than a row still moves a row at a time.
        assert_eq!(scroll_for_key(ScrollKey::PageDown, n, h, 0.0, 10.0), 28.0);
        // A list that fits does not scroll.
        assert_eq!(scroll_for_key(ScrollKey::End, 5, h, 0.0, vp), 0.0);
    }

    #[test]
    fn revealing_a_row_scrolls_the_least() {
        let (n, h, vp) = (1_000, 28, 420.0);
        // Row 3 (84..112) is in view at the top.
        assert_eq!(scroll_to_reveal(3, n, h, 0.0, vp), None);
        // Row 20 (560..588) is below: its bottom edge comes to the viewport's.
        assert_eq!(scroll_to_reveal(20, n, h, 0.0, vp), Some(588.0 - 420.0));
        // Row 2 is above a scrolled viewport: its top comes to the top.
        assert_eq!(scroll_to_reveal(2, n, h, 500.0, vp), Some(56.0));
        assert_eq!(scroll_to_reveal(1_000, n, h, 0.0, vp), None);
        // The row it reveals is inside the window at the new offset.
        let top = scroll_to_reveal(900, n, h, 0.0, vp).unwrap_or_default();
        let w = window(n, h, top, vp, 0);
        assert!((w.first..w.end).contains(&900));
    }
}
