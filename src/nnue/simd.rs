//! The network's two hot loops, in a portable scalar version and an AVX2 version chosen at run
//! time: adding and subtracting feature columns to update an accumulator, and the SCReLU dot
//! product of the output layer. Every version computes exactly the same integers (i16 lanes
//! wrap, i32 sums wrap), which `tests` check on random data and the engine's tests check on
//! real positions.

use super::{HIDDEN, QA};

/// Which implementation of the kernels to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernels {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Kernels {
    /// The fastest kernels this CPU runs.
    pub fn detect() -> Kernels {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Kernels::Avx2;
        }
        Kernels::Scalar
    }

    /// Every implementation this CPU can run (for the tests that compare them).
    pub fn available() -> Vec<Kernels> {
        let mut all = vec![Kernels::Scalar];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            all.push(Kernels::Avx2);
        }
        all
    }

    /// `child = parent + Σ adds − Σ subs`, lane by lane (wrapping i16).
    #[inline]
    pub fn update(self, parent: &[i16], child: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
        // Checked here, once per call: the AVX2 loop reads HIDDEN lanes of every slice.
        assert!(parent.len() == HIDDEN && child.len() == HIDDEN);
        assert!(adds.iter().chain(subs).all(|c| c.len() == HIDDEN));
        match self {
            Kernels::Scalar => update_scalar(parent, child, adds, subs),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2; the lengths are checked.
            Kernels::Avx2 => unsafe { avx2::update(parent, child, adds, subs) },
        }
    }

    /// `Σ clamp(acc, 0, QA)² · w` over the HIDDEN lanes, as wrapping i32 (the product
    /// `clamp(acc)·w` is taken in i16, which the output weights' limit keeps exact).
    #[inline]
    pub fn screlu_dot(self, acc: &[i16], weights: &[i16]) -> i32 {
        assert!(acc.len() == HIDDEN && weights.len() == HIDDEN);
        match self {
            Kernels::Scalar => screlu_dot_scalar(acc, weights),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernels::Avx2 => unsafe { avx2::screlu_dot(acc, weights) },
        }
    }
}

fn update_scalar(parent: &[i16], child: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
    for i in 0..HIDDEN {
        let mut v = parent[i];
        for a in adds {
            v = v.wrapping_add(a[i]);
        }
        for s in subs {
            v = v.wrapping_sub(s[i]);
        }
        child[i] = v;
    }
}

fn screlu_dot_scalar(acc: &[i16], weights: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&a, &w) in acc.iter().zip(weights) {
        let v = a.clamp(0, QA as i16);
        let vw = v.wrapping_mul(w);
        sum = sum.wrapping_add(i32::from(vw) * i32::from(v));
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    #[target_feature(enable = "avx2")]
    pub unsafe fn update(parent: &[i16], child: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
        for chunk in 0..HIDDEN / LANES {
            let at = chunk * LANES;
            // SAFETY: every slice holds HIDDEN i16s (checked by the caller); unaligned loads.
            unsafe {
                let mut v = _mm256_loadu_si256(parent.as_ptr().add(at).cast());
                for a in adds {
                    v = _mm256_add_epi16(v, _mm256_loadu_si256(a.as_ptr().add(at).cast()));
                }
                for s in subs {
                    v = _mm256_sub_epi16(v, _mm256_loadu_si256(s.as_ptr().add(at).cast()));
                }
                _mm256_storeu_si256(child.as_mut_ptr().add(at).cast(), v);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(acc: &[i16], weights: &[i16]) -> i32 {
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for chunk in 0..HIDDEN / LANES {
            let at = chunk * LANES;
            // SAFETY: both slices hold HIDDEN i16s (checked by the caller).
            let (a, w) = unsafe {
                (
                    _mm256_loadu_si256(acc.as_ptr().add(at).cast()),
                    _mm256_loadu_si256(weights.as_ptr().add(at).cast()),
                )
            };
            let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), one);
            let vw = _mm256_mullo_epi16(v, w);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        // Horizontal sum of the eight i32 lanes (wrapping, like the scalar loop).
        let low = _mm256_castsi256_si128(sum);
        let high = _mm256_extracti128_si256::<1>(sum);
        let s = _mm_add_epi32(low, high);
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
        _mm_cvtsi128_si32(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn random_vec(rng: &mut StdRng, lo: i16, hi: i16) -> Vec<i16> {
        (0..HIDDEN).map(|_| rng.random_range(lo..=hi)).collect()
    }

    /// Every kernel gives the scalar kernel's integers, including where lanes wrap and at the
    /// clamp's edges.
    #[test]
    fn every_kernel_equals_the_scalar_one() {
        let mut rng = StdRng::seed_from_u64(5);
        let kernels = Kernels::available();
        for round in 0..2000 {
            let (lo, hi) = if round % 3 == 0 {
                (i16::MIN, i16::MAX)
            } else {
                (-400, 400)
            };
            let parent = random_vec(&mut rng, lo, hi);
            let cols: Vec<Vec<i16>> = (0..4).map(|_| random_vec(&mut rng, lo, hi)).collect();
            let adds: Vec<&[i16]> = cols[..round % 3].iter().map(Vec::as_slice).collect();
            let subs: Vec<&[i16]> = cols[2..2 + round % 3].iter().map(Vec::as_slice).collect();
            let weights = random_vec(&mut rng, -127, 127);
            let mut expected = vec![0; HIDDEN];
            Kernels::Scalar.update(&parent, &mut expected, &adds, &subs);
            let dot = Kernels::Scalar.screlu_dot(&parent, &weights);
            for &k in &kernels {
                let mut child = vec![0; HIDDEN];
                k.update(&parent, &mut child, &adds, &subs);
                assert_eq!(child, expected, "{k:?} update");
                assert_eq!(k.screlu_dot(&parent, &weights), dot, "{k:?} dot");
            }
        }
        // The scalar dot product is the plain formula where nothing wraps.
        let acc = vec![300i16; HIDDEN];
        let w = vec![2i16; HIDDEN];
        assert_eq!(
            Kernels::Scalar.screlu_dot(&acc, &w),
            (QA * QA * 2) * HIDDEN as i32
        );
    }
}
