//! `java.util.TimSort` as `Arrays.sort(T[], Comparator)` / `Stream.sorted(Comparator)` run it,
//! step for step, so that a comparator that is not a total order (AvgShedder's `(int)(a - b)` before
//! apache/pulsar#24954) gives Java's order — or Java's
//! `IllegalArgumentException: Comparison method violates its general contract!`. With a consistent
//! comparator the result is the stable sort's.

use std::cmp::Ordering;

const MIN_MERGE: usize = 32;
const MIN_GALLOP: i64 = 7;

/// TimSort detected an inconsistent comparator; the Java caller gets an `IllegalArgumentException`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContractViolation;

/// Java's `(int) x` for a double: NaN → 0, saturation at `Integer.MIN_VALUE` / `MAX_VALUE`,
/// truncation toward zero otherwise (JLS §5.1.3); Rust's `as` has the same semantics.
pub fn java_double_to_int(x: f64) -> i32 {
    x as i32
}

/// `(o1, o2) -> (int) (o1 - o2)`, the pre-#24954 AvgShedder comparator, as an ordering.
pub fn int_truncating_compare(a: f64, b: f64) -> Ordering {
    java_double_to_int(a - b).cmp(&0)
}

struct Sorter<'a, T: Copy, F: FnMut(&T, &T) -> Ordering> {
    a: &'a mut [T],
    cmp: F,
    min_gallop: i64,
    run_base: Vec<i64>,
    run_len: Vec<i64>,
}

type R<T> = Result<T, ContractViolation>;

fn at<T: Copy>(v: &[T], i: i64) -> R<T> {
    usize::try_from(i)
        .ok()
        .and_then(|i| v.get(i).copied())
        .ok_or(ContractViolation)
}

fn put<T: Copy>(v: &mut [T], i: i64, x: T) -> R<()> {
    let slot = usize::try_from(i)
        .ok()
        .and_then(|i| v.get_mut(i))
        .ok_or(ContractViolation)?;
    *slot = x;
    Ok(())
}

/// `System.arraycopy` (overlap-safe, like Java's).
fn copy<T: Copy>(src: &[T], from: i64, dst: &mut [T], to: i64, n: i64) -> R<()> {
    let chunk: Vec<T> = (0..n).map(|k| at(src, from + k)).collect::<R<_>>()?;
    for (k, x) in chunk.into_iter().enumerate() {
        put(dst, to + k as i64, x)?;
    }
    Ok(())
}

fn copy_within<T: Copy>(v: &mut [T], from: i64, to: i64, n: i64) -> R<()> {
    let chunk: Vec<T> = (0..n).map(|k| at(v, from + k)).collect::<R<_>>()?;
    for (k, x) in chunk.into_iter().enumerate() {
        put(v, to + k as i64, x)?;
    }
    Ok(())
}

/// Sorts `a` exactly as Java's `TimSort.sort(a, 0, a.length, c, null, 0, 0)` does.
pub fn java_sort<T: Copy>(
    a: &mut [T],
    cmp: impl FnMut(&T, &T) -> Ordering,
) -> Result<(), ContractViolation> {
    let n = a.len();
    if n < 2 {
        return Ok(());
    }
    let mut s = Sorter {
        a,
        cmp,
        min_gallop: MIN_GALLOP,
        run_base: Vec::new(),
        run_len: Vec::new(),
    };
    let hi = n as i64;
    if n < MIN_MERGE {
        let init = s.count_run_and_make_ascending(0, hi)?;
        return s.binary_sort(0, hi, init);
    }
    let min_run = min_run_length(n) as i64;
    let mut lo = 0i64;
    let mut remaining = hi;
    while remaining != 0 {
        let mut run = s.count_run_and_make_ascending(lo, hi)?;
        if run < min_run {
            let force = remaining.min(min_run);
            s.binary_sort(lo, lo + force, lo + run)?;
            run = force;
        }
        s.run_base.push(lo);
        s.run_len.push(run);
        s.merge_collapse()?;
        lo += run;
        remaining -= run;
    }
    s.merge_force_collapse()
}

fn min_run_length(mut n: usize) -> usize {
    let mut r = 0;
    while n >= MIN_MERGE {
        r |= n & 1;
        n >>= 1;
    }
    n + r
}

impl<T: Copy, F: FnMut(&T, &T) -> Ordering> Sorter<'_, T, F> {
    fn c(&mut self, x: T, y: T) -> Ordering {
        (self.cmp)(&x, &y)
    }

    fn count_run_and_make_ascending(&mut self, lo: i64, hi: i64) -> R<i64> {
        let mut run_hi = lo + 1;
        if run_hi == hi {
            return Ok(1);
        }
        let (x, y) = (at(self.a, run_hi)?, at(self.a, lo)?);
        run_hi += 1;
        if self.c(x, y) == Ordering::Less {
            while run_hi < hi {
                let (x, y) = (at(self.a, run_hi)?, at(self.a, run_hi - 1)?);
                if self.c(x, y) != Ordering::Less {
                    break;
                }
                run_hi += 1;
            }
            let (l, h) = (usize::try_from(lo), usize::try_from(run_hi));
            if let (Ok(l), Ok(h)) = (l, h)
                && let Some(run) = self.a.get_mut(l..h)
            {
                run.reverse();
            }
        } else {
            while run_hi < hi {
                let (x, y) = (at(self.a, run_hi)?, at(self.a, run_hi - 1)?);
                if self.c(x, y) == Ordering::Less {
                    break;
                }
                run_hi += 1;
            }
        }
        Ok(run_hi - lo)
    }

    fn binary_sort(&mut self, lo: i64, hi: i64, start: i64) -> R<()> {
        let mut start = if start == lo { start + 1 } else { start };
        while start < hi {
            let pivot = at(self.a, start)?;
            let (mut left, mut right) = (lo, start);
            while left < right {
                let mid = (left + right) >> 1;
                let m = at(self.a, mid)?;
                if self.c(pivot, m) == Ordering::Less {
                    right = mid;
                } else {
                    left = mid + 1;
                }
            }
            copy_within(self.a, left, left + 1, start - left)?;
            put(self.a, left, pivot)?;
            start += 1;
        }
        Ok(())
    }

    fn len_at(&self, i: i64) -> i64 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.run_len.get(i).copied())
            .unwrap_or(0)
    }

    fn merge_collapse(&mut self) -> R<()> {
        while self.run_len.len() > 1 {
            let mut n = self.run_len.len() as i64 - 2;
            let l = |s: &Self, i: i64| s.len_at(i);
            if (n > 0 && l(self, n - 1) <= l(self, n) + l(self, n + 1))
                || (n > 1 && l(self, n - 2) <= l(self, n) + l(self, n - 1))
            {
                if l(self, n - 1) < l(self, n + 1) {
                    n -= 1;
                }
            } else if l(self, n) > l(self, n + 1) {
                break;
            }
            self.merge_at(n)?;
        }
        Ok(())
    }

    fn merge_force_collapse(&mut self) -> R<()> {
        while self.run_len.len() > 1 {
            let mut n = self.run_len.len() as i64 - 2;
            if n > 0 && self.len_at(n - 1) < self.len_at(n + 1) {
                n -= 1;
            }
            self.merge_at(n)?;
        }
        Ok(())
    }

    fn merge_at(&mut self, i: i64) -> R<()> {
        let iu = usize::try_from(i).map_err(|_| ContractViolation)?;
        let base1 = at(&self.run_base, i)?;
        let mut len1 = at(&self.run_len, i)?;
        let base2 = at(&self.run_base, i + 1)?;
        let mut len2 = at(&self.run_len, i + 1)?;
        put(&mut self.run_len, i, len1 + len2)?;
        if iu + 3 == self.run_len.len() {
            let (b, l) = (at(&self.run_base, i + 2)?, at(&self.run_len, i + 2)?);
            put(&mut self.run_base, i + 1, b)?;
            put(&mut self.run_len, i + 1, l)?;
        }
        self.run_base.pop();
        self.run_len.pop();
        let key = at(self.a, base2)?;
        let k = self.gallop_right(key, None, base1, len1, 0)?;
        let base1 = base1 + k;
        len1 -= k;
        if len1 == 0 {
            return Ok(());
        }
        let key = at(self.a, base1 + len1 - 1)?;
        len2 = self.gallop_left(key, None, base2, len2, len2 - 1)?;
        if len2 == 0 {
            return Ok(());
        }
        if len1 <= len2 {
            self.merge_lo(base1, len1, base2, len2)
        } else {
            self.merge_hi(base1, len1, base2, len2)
        }
    }

    /// Reads `a` (when `tmp` is `None`) or `tmp`.
    fn get(&self, tmp: Option<&[T]>, i: i64) -> R<T> {
        match tmp {
            Some(t) => at(t, i),
            None => at(self.a, i),
        }
    }

    fn gallop_left(&mut self, key: T, tmp: Option<&[T]>, base: i64, len: i64, hint: i64) -> R<i64> {
        let (mut last_ofs, mut ofs) = (0i64, 1i64);
        let h = self.get(tmp, base + hint)?;
        if self.c(key, h) == Ordering::Greater {
            let max_ofs = len - hint;
            while ofs < max_ofs {
                let x = self.get(tmp, base + hint + ofs)?;
                if self.c(key, x) != Ordering::Greater {
                    break;
                }
                last_ofs = ofs;
                ofs = (ofs << 1) + 1;
                if ofs <= 0 {
                    ofs = max_ofs;
                }
            }
            ofs = ofs.min(max_ofs);
            last_ofs += hint;
            ofs += hint;
        } else {
            let max_ofs = hint + 1;
            while ofs < max_ofs {
                let x = self.get(tmp, base + hint - ofs)?;
                if self.c(key, x) == Ordering::Greater {
                    break;
                }
                last_ofs = ofs;
                ofs = (ofs << 1) + 1;
                if ofs <= 0 {
                    ofs = max_ofs;
                }
            }
            ofs = ofs.min(max_ofs);
            let t = last_ofs;
            last_ofs = hint - ofs;
            ofs = hint - t;
        }
        last_ofs += 1;
        while last_ofs < ofs {
            let m = last_ofs + ((ofs - last_ofs) >> 1);
            let x = self.get(tmp, base + m)?;
            if self.c(key, x) == Ordering::Greater {
                last_ofs = m + 1;
            } else {
                ofs = m;
            }
        }
        Ok(ofs)
    }

    fn gallop_right(
        &mut self,
        key: T,
        tmp: Option<&[T]>,
        base: i64,
        len: i64,
        hint: i64,
    ) -> R<i64> {
        let (mut last_ofs, mut ofs) = (0i64, 1i64);
        let h = self.get(tmp, base + hint)?;
        if self.c(key, h) == Ordering::Less {
            let max_ofs = hint + 1;
            while ofs < max_ofs {
                let x = self.get(tmp, base + hint - ofs)?;
                if self.c(key, x) != Ordering::Less {
                    break;
                }
                last_ofs = ofs;
                ofs = (ofs << 1) + 1;
                if ofs <= 0 {
                    ofs = max_ofs;
                }
            }
            ofs = ofs.min(max_ofs);
            let t = last_ofs;
            last_ofs = hint - ofs;
            ofs = hint - t;
        } else {
            let max_ofs = len - hint;
            while ofs < max_ofs {
                let x = self.get(tmp, base + hint + ofs)?;
                if self.c(key, x) == Ordering::Less {
                    break;
                }
                last_ofs = ofs;
                ofs = (ofs << 1) + 1;
                if ofs <= 0 {
                    ofs = max_ofs;
                }
            }
            ofs = ofs.min(max_ofs);
            last_ofs += hint;
            ofs += hint;
        }
        last_ofs += 1;
        while last_ofs < ofs {
            let m = last_ofs + ((ofs - last_ofs) >> 1);
            let x = self.get(tmp, base + m)?;
            if self.c(key, x) == Ordering::Less {
                ofs = m;
            } else {
                last_ofs = m + 1;
            }
        }
        Ok(ofs)
    }

    fn merge_lo(&mut self, base1: i64, mut len1: i64, base2: i64, mut len2: i64) -> R<()> {
        let mut tmp: Vec<T> = Vec::with_capacity(usize::try_from(len1).unwrap_or(0));
        for k in 0..len1 {
            tmp.push(at(self.a, base1 + k)?);
        }
        let (mut c1, mut c2, mut dest) = (0i64, base2, base1);
        let x = at(self.a, c2)?;
        put(self.a, dest, x)?;
        dest += 1;
        c2 += 1;
        len2 -= 1;
        if len2 == 0 {
            return copy(&tmp, c1, self.a, dest, len1);
        }
        if len1 == 1 {
            copy_within(self.a, c2, dest, len2)?;
            return put(self.a, dest + len2, at(&tmp, c1)?);
        }
        let mut min_gallop = self.min_gallop;
        'outer: loop {
            let (mut count1, mut count2) = (0i64, 0i64);
            loop {
                let (x, y) = (at(self.a, c2)?, at(&tmp, c1)?);
                if self.c(x, y) == Ordering::Less {
                    put(self.a, dest, x)?;
                    dest += 1;
                    c2 += 1;
                    count2 += 1;
                    count1 = 0;
                    len2 -= 1;
                    if len2 == 0 {
                        break 'outer;
                    }
                } else {
                    put(self.a, dest, y)?;
                    dest += 1;
                    c1 += 1;
                    count1 += 1;
                    count2 = 0;
                    len1 -= 1;
                    if len1 == 1 {
                        break 'outer;
                    }
                }
                if (count1 | count2) >= min_gallop {
                    break;
                }
            }
            loop {
                let key = at(self.a, c2)?;
                count1 = self.gallop_right(key, Some(&tmp), c1, len1, 0)?;
                if count1 != 0 {
                    copy(&tmp, c1, self.a, dest, count1)?;
                    dest += count1;
                    c1 += count1;
                    len1 -= count1;
                    if len1 <= 1 {
                        break 'outer;
                    }
                }
                let x = at(self.a, c2)?;
                put(self.a, dest, x)?;
                dest += 1;
                c2 += 1;
                len2 -= 1;
                if len2 == 0 {
                    break 'outer;
                }
                let key = at(&tmp, c1)?;
                count2 = self.gallop_left(key, None, c2, len2, 0)?;
                if count2 != 0 {
                    copy_within(self.a, c2, dest, count2)?;
                    dest += count2;
                    c2 += count2;
                    len2 -= count2;
                    if len2 == 0 {
                        break 'outer;
                    }
                }
                put(self.a, dest, at(&tmp, c1)?)?;
                dest += 1;
                c1 += 1;
                len1 -= 1;
                if len1 == 1 {
                    break 'outer;
                }
                min_gallop -= 1;
                if !(count1 >= MIN_GALLOP || count2 >= MIN_GALLOP) {
                    break;
                }
            }
            min_gallop = min_gallop.max(0) + 2;
        }
        self.min_gallop = min_gallop.max(1);
        if len1 == 1 {
            copy_within(self.a, c2, dest, len2)?;
            put(self.a, dest + len2, at(&tmp, c1)?)
        } else if len1 == 0 {
            Err(ContractViolation)
        } else {
            copy(&tmp, c1, self.a, dest, len1)
        }
    }

    fn merge_hi(&mut self, base1: i64, mut len1: i64, base2: i64, mut len2: i64) -> R<()> {
        let mut tmp: Vec<T> = Vec::with_capacity(usize::try_from(len2).unwrap_or(0));
        for k in 0..len2 {
            tmp.push(at(self.a, base2 + k)?);
        }
        let mut c1 = base1 + len1 - 1;
        let mut c2 = len2 - 1;
        let mut dest = base2 + len2 - 1;
        let x = at(self.a, c1)?;
        put(self.a, dest, x)?;
        dest -= 1;
        c1 -= 1;
        len1 -= 1;
        if len1 == 0 {
            return copy(&tmp, 0, self.a, dest - (len2 - 1), len2);
        }
        if len2 == 1 {
            dest -= len1;
            c1 -= len1;
            copy_within(self.a, c1 + 1, dest + 1, len1)?;
            return put(self.a, dest, at(&tmp, c2)?);
        }
        let mut min_gallop = self.min_gallop;
        'outer: loop {
            let (mut count1, mut count2) = (0i64, 0i64);
            loop {
                let (x, y) = (at(&tmp, c2)?, at(self.a, c1)?);
                if self.c(x, y) == Ordering::Less {
                    put(self.a, dest, y)?;
                    dest -= 1;
                    c1 -= 1;
                    count1 += 1;
                    count2 = 0;
                    len1 -= 1;
                    if len1 == 0 {
                        break 'outer;
                    }
                } else {
                    put(self.a, dest, x)?;
                    dest -= 1;
                    c2 -= 1;
                    count2 += 1;
                    count1 = 0;
                    len2 -= 1;
                    if len2 == 1 {
                        break 'outer;
                    }
                }
                if (count1 | count2) >= min_gallop {
                    break;
                }
            }
            loop {
                let key = at(&tmp, c2)?;
                count1 = len1 - self.gallop_right(key, None, base1, len1, len1 - 1)?;
                if count1 != 0 {
                    dest -= count1;
                    c1 -= count1;
                    len1 -= count1;
                    copy_within(self.a, c1 + 1, dest + 1, count1)?;
                    if len1 == 0 {
                        break 'outer;
                    }
                }
                put(self.a, dest, at(&tmp, c2)?)?;
                dest -= 1;
                c2 -= 1;
                len2 -= 1;
                if len2 == 1 {
                    break 'outer;
                }
                let key = at(self.a, c1)?;
                count2 = len2 - self.gallop_left(key, Some(&tmp), 0, len2, len2 - 1)?;
                if count2 != 0 {
                    dest -= count2;
                    c2 -= count2;
                    len2 -= count2;
                    copy(&tmp, c2 + 1, self.a, dest + 1, count2)?;
                    if len2 <= 1 {
                        break 'outer;
                    }
                }
                let x = at(self.a, c1)?;
                put(self.a, dest, x)?;
                dest -= 1;
                c1 -= 1;
                len1 -= 1;
                if len1 == 0 {
                    break 'outer;
                }
                min_gallop -= 1;
                if !(count1 >= MIN_GALLOP || count2 >= MIN_GALLOP) {
                    break;
                }
            }
            min_gallop = min_gallop.max(0) + 2;
        }
        self.min_gallop = min_gallop.max(1);
        if len2 == 1 {
            dest -= len1;
            c1 -= len1;
            copy_within(self.a, c1 + 1, dest + 1, len1)?;
            put(self.a, dest, at(&tmp, c2)?)
        } else if len2 == 0 {
            Err(ContractViolation)
        } else {
            copy(&tmp, 0, self.a, dest - (len2 - 1), len2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn java_casts_a_double_to_int() {
        assert_eq!(java_double_to_int(f64::NAN), 0);
        assert_eq!(java_double_to_int(0.99), 0);
        assert_eq!(java_double_to_int(-0.99), 0);
        assert_eq!(java_double_to_int(-1.5), -1);
        assert_eq!(java_double_to_int(1e12), i32::MAX);
        assert_eq!(java_double_to_int(f64::NEG_INFINITY), i32::MIN);
        assert_eq!(int_truncating_compare(10.4, 10.0), Ordering::Equal);
        assert_eq!(int_truncating_compare(11.0, 10.0), Ordering::Greater);
    }

    /// With a consistent comparator TimSort is a stable sort, at every size (both the
    /// binary-insertion path below 32 elements and the run-merging path above).
    #[test]
    fn consistent_comparators_give_the_stable_sort() {
        let mut picker = SplitMix64::new(7);
        for n in [0usize, 1, 2, 5, 31, 32, 33, 64, 100, 257, 1000] {
            let v: Vec<(u32, usize)> = (0..n)
                .map(|i| ((picker.next_u64() % 50) as u32, i))
                .collect();
            let mut java = v.clone();
            java_sort(&mut java, |a, b| a.0.cmp(&b.0)).unwrap();
            let mut rust = v;
            rust.sort_by_key(|a| a.0);
            assert_eq!(java, rust, "n = {n}");
        }
    }

    /// Below 32 elements Java runs `countRunAndMakeAscending` then `binarySort`: with `(int)(a - b)`
    /// scores within one point compare equal, so the result is not the numeric order. Worked by
    /// hand from `TimSort`: [10.5, 10.0, 9.6] — (int)(10.0 - 10.5) = 0 and (int)(9.6 - 10.0) = 0,
    /// so all three are one ascending run and the order is unchanged.
    #[test]
    fn truncating_comparator_keeps_near_scores_in_arrival_order() {
        let mut v = vec![10.5, 10.0, 9.6];
        java_sort(&mut v, |a, b| int_truncating_compare(*a, *b)).unwrap();
        assert_eq!(v, vec![10.5, 10.0, 9.6]);
        let mut exact = vec![10.5, 10.0, 9.6];
        java_sort(&mut exact, |a: &f64, b: &f64| a.total_cmp(b)).unwrap();
        assert_eq!(exact, vec![9.6, 10.0, 10.5]);
        // A strictly descending start is reversed first: [30, 20, 10.2, 10] → run [30,20,10.2]
        // reversed to [10.2, 20, 30], then 10 vs 20 → Less; vs 10.2 → (int)(-0.2) = 0 → right.
        let mut d = vec![30.0, 20.0, 10.2, 10.0];
        java_sort(&mut d, |a, b| int_truncating_compare(*a, *b)).unwrap();
        assert_eq!(d, vec![10.2, 10.0, 20.0, 30.0]);
    }
}
