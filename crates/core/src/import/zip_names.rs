//! The member names a zip's central directory lists, read from the bytes themselves: the `zip`
//! crate keeps one entry per name (a second member of the same name silently replaces the first),
//! so a zip naming a member twice, where which one is meant is not known, is found here and
//! refused by the importer and the series reader alike.

use std::collections::HashSet;

const EOCD_SIG: u32 = 0x0605_4b50;
const ZIP64_LOCATOR_SIG: u32 = 0x0706_4b50;
const ZIP64_EOCD_SIG: u32 = 0x0606_4b50;
const CENTRAL_SIG: u32 = 0x0201_4b50;
/// The end record is at most this far from the end (22 bytes and a comment of up to 65,535).
const EOCD_SEARCH: usize = 22 + 65_535;

fn u16_at(b: &[u8], at: usize) -> Option<u64> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u64::from(u16::from_le_bytes([*s.first()?, *s.get(1)?])))
}

fn u32_at(b: &[u8], at: usize) -> Option<u64> {
    let s: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(u64::from(u32::from_le_bytes(s)))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    let s: [u8; 8] = b.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(s))
}

/// (entries, offset of the central directory), from the end record (zip64 when it says so).
fn directory(b: &[u8]) -> Option<(u64, u64)> {
    let from = b.len().saturating_sub(EOCD_SEARCH);
    let eocd = (from..b.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(b, i) == Some(u64::from(EOCD_SIG)))?;
    let entries = u16_at(b, eocd + 10)?;
    let offset = u32_at(b, eocd + 16)?;
    if entries != 0xFFFF && offset != 0xFFFF_FFFF {
        return Some((entries, offset));
    }
    let locator = eocd.checked_sub(20)?;
    if u32_at(b, locator)? != u64::from(ZIP64_LOCATOR_SIG) {
        return Some((entries, offset));
    }
    let record = usize::try_from(u64_at(b, locator + 8)?).ok()?;
    if u32_at(b, record)? != u64::from(ZIP64_EOCD_SIG) {
        return None;
    }
    Some((u64_at(b, record + 32)?, u64_at(b, record + 48)?))
}

/// The first member name the central directory lists twice, if any (`None` too when the
/// directory cannot be walked: the zip reader then says what is wrong with it).
pub(crate) fn first_duplicate(b: &[u8]) -> Option<String> {
    let (entries, offset) = directory(b)?;
    let mut at = usize::try_from(offset).ok()?;
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for _ in 0..entries {
        if u32_at(b, at)? != u64::from(CENTRAL_SIG) {
            return None;
        }
        let name_len = usize::try_from(u16_at(b, at + 28)?).ok()?;
        let extra_len = usize::try_from(u16_at(b, at + 30)?).ok()?;
        let comment_len = usize::try_from(u16_at(b, at + 32)?).ok()?;
        let name = b.get(at + 46..at + 46 + name_len)?;
        if !seen.insert(name) {
            return Some(String::from_utf8_lossy(name).into_owned());
        }
        at = at + 46 + name_len + extra_len + comment_len;
    }
    None
}

/// The refusal of a zip naming `member` twice.
pub fn duplicate_message(member: &str) -> String {
    format!(
        "member {member} appears twice (a zip whose members share a name is refused: which one is \
         meant is not known)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(names: &[&str]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for n in names {
            w.start_file(*n, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(b"x").unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn finds_a_name_listed_twice() {
        assert_eq!(first_duplicate(&zip_of(&["a.json", "b.json"])), None);
        let mut z = zip_of(&["a.json", "b.json"]);
        let at: Vec<usize> = (0..z.len() - 6)
            .filter(|&i| &z[i..i + 6] == b"b.json")
            .collect();
        for i in at {
            z[i..i + 6].copy_from_slice(b"a.json");
        }
        assert_eq!(first_duplicate(&z).as_deref(), Some("a.json"));
        assert_eq!(first_duplicate(b"not a zip"), None);
    }
}
