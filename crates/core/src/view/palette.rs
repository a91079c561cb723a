//! A stable colour per broker (from its name, so the same broker keeps its colour across snapshots
//! and reloads) and the load shading of a bundle segment.

/// FNV-1a over the name's bytes: cheap, stable across platforms and versions.
fn fnv1a(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// The broker's base colour (RGB): hue from the name's hash, fixed saturation, a lightness from a
/// few steps so neighbouring hues still differ.
pub fn broker_colour(name: &str) -> [u8; 3] {
    let h = fnv1a(name);
    let hue = f64::from(h % 360);
    let lightness = match (h / 360) % 3 {
        0 => 0.42,
        1 => 0.50,
        _ => 0.58,
    };
    hsl_to_rgb(hue, 0.62, lightness)
}

/// `#rrggbb`.
pub fn css_hex(rgb: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2])
}

/// The segment colour for a load share `t` in 0..=1: light (little load) to the full colour
/// (the busiest bundle of the snapshot).
pub fn shade(rgb: [u8; 3], t: f32) -> [u8; 3] {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let towards_white = 0.65 * (1.0 - t);
    rgb.map(|c| {
        let c = f32::from(c);
        (c + (255.0 - c) * towards_white).round().clamp(0.0, 255.0) as u8
    })
}

fn hsl_to_rgb(hue_deg: f64, s: f64, l: f64) -> [u8; 3] {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = hue_deg / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    [r, g, b].map(|v| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_stable_and_differ() {
        assert_eq!(broker_colour("b1:8080"), broker_colour("b1:8080"));
        assert_ne!(broker_colour("b1:8080"), broker_colour("b2:8080"));
        // FNV-1a of the empty string is the offset basis 0x811c9dc5 = 2166136261; 2166136261 % 360 = 301.
        assert_eq!(fnv1a(""), 0x811c_9dc5);
        assert_eq!(fnv1a("a"), 0xe40c_292c);
    }

    #[test]
    fn hsl_primaries() {
        assert_eq!(hsl_to_rgb(0.0, 1.0, 0.5), [255, 0, 0]);
        assert_eq!(hsl_to_rgb(120.0, 1.0, 0.5), [0, 255, 0]);
        assert_eq!(hsl_to_rgb(240.0, 1.0, 0.5), [0, 0, 255]);
        assert_eq!(css_hex([255, 0, 16]), "#ff0010");
    }

    #[test]
    fn shading_goes_from_light_to_full() {
        assert_eq!(shade([0, 100, 200], 1.0), [0, 100, 200]);
        let light = shade([0, 100, 200], 0.0);
        assert!(light.iter().zip([0, 100, 200]).all(|(l, c)| *l >= c));
        assert_eq!(shade([10, 10, 10], f32::NAN), shade([10, 10, 10], 0.0));
    }
}
