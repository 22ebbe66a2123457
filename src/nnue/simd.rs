//! The network's two hot loops, in a portable scalar version and AVX2 and AVX-512 versions
//! chosen at run time: adding and subtracting feature columns to update an accumulator, and the
//! SCReLU dot product of the output layer. Every version computes exactly the same integers
//! (i16 lanes wrap; the dot product is exact, see [`Kernels::screlu_dot`]), which `tests` check
//! on random data of every hidden width and the engine's tests check on real positions.
//!
//! The hidden width is the net's (a multiple of [`HIDDEN_STEP`] up to [`MAX_HIDDEN`]), so it is
//! known only at run time; the usual widths (256, 384, 512, 768, 1024) get loops compiled for
//! their exact length, the others a loop over the slice's length.
//!
//! `SCOUT_SIMD=scalar|avx2|avx512` in the environment caps the kernels [`Kernels::detect`]
//! chooses (to measure one path against another); the fastest the CPU has is the default.

use super::{HIDDEN_STEP, MAX_HIDDEN, QA};

/// Which implementation of the kernels to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kernels {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// Calls `$module::$function::<N>` with N the slice length when it is one of the widths compiled
/// for, `::<0>` (the slice's own length) otherwise.
#[cfg(target_arch = "x86_64")]
macro_rules! sized {
    ($n:expr, $module:ident :: $function:ident ($($arg:expr),*)) => {
        match $n {
            256 => $module::$function::<256>($($arg),*),
            384 => $module::$function::<384>($($arg),*),
            512 => $module::$function::<512>($($arg),*),
            768 => $module::$function::<768>($($arg),*),
            1024 => $module::$function::<1024>($($arg),*),
            _ => $module::$function::<0>($($arg),*),
        }
    };
}

impl Kernels {
    /// The fastest kernels this CPU runs, capped by `SCOUT_SIMD` if it is set (read once).
    pub fn detect() -> Kernels {
        static CHOSEN: std::sync::OnceLock<Kernels> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let best = *Self::available()
                .last()
                .expect("scalar is always available");
            match std::env::var("SCOUT_SIMD").ok().as_deref().map(Self::named) {
                Some(Some(cap)) => best.min(cap),
                _ => best,
            }
        })
    }

    /// The kernels a `SCOUT_SIMD` value names.
    fn named(name: &str) -> Option<Kernels> {
        match name.to_ascii_lowercase().as_str() {
            "scalar" => Some(Kernels::Scalar),
            #[cfg(target_arch = "x86_64")]
            "avx2" => Some(Kernels::Avx2),
            #[cfg(target_arch = "x86_64")]
            "avx512" => Some(Kernels::Avx512),
            _ => None,
        }
    }

    /// Every implementation this CPU can run, slowest first (for the tests that compare them).
    pub fn available() -> Vec<Kernels> {
        let mut all = vec![Kernels::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(Kernels::Avx2);
            }
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                all.push(Kernels::Avx512);
            }
        }
        all
    }

    /// `child = parent + Σ adds − Σ subs`, lane by lane (wrapping i16). Every slice has the
    /// same length, a multiple of [`HIDDEN_STEP`].
    #[inline(always)]
    pub fn update(self, parent: &[i16], child: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
        // Checked here, once per call: the SIMD loops read the whole length of every slice.
        let n = parent.len();
        assert!(n.is_multiple_of(HIDDEN_STEP) && child.len() == n);
        assert!(adds.iter().chain(subs).all(|c| c.len() == n));
        // The three shapes of a move (a quiet move or promotion, a capture, castling) get loops
        // compiled for their number of columns (arrays), which the compiler unrolls: on the
        // bench that cuts the kernel's instructions to a sixth (docs/results.md, session 71).
        match (adds, subs) {
            (&[a], &[s]) => self.update_shaped(parent, child, [a], [s]),
            (&[a], &[s, t]) => self.update_shaped(parent, child, [a], [s, t]),
            (&[a, b], &[s, t]) => self.update_shaped(parent, child, [a, b], [s, t]),
            _ => self.update_shaped(parent, child, adds, subs),
        }
    }

    /// [`Kernels::update`] for one shape of columns (lengths checked by it).
    #[inline(always)]
    fn update_shaped<'a>(
        self,
        parent: &[i16],
        child: &mut [i16],
        adds: impl AsRef<[&'a [i16]]>,
        subs: impl AsRef<[&'a [i16]]>,
    ) {
        let n = parent.len();
        match self {
            Kernels::Scalar => update_scalar(parent, child, adds.as_ref(), subs.as_ref()),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx2` is only chosen when the CPU has AVX2; the lengths are checked.
            Kernels::Avx2 => unsafe { sized!(n, avx2::update(parent, child, adds, subs)) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Avx512` is only chosen when the CPU has AVX-512 F and BW; lengths checked.
            Kernels::Avx512 => unsafe { sized!(n, avx512::update(parent, child, adds, subs)) },
        }
    }

    /// `Σ clamp(acc, 0, QA)² · w` over the lanes. The product `clamp(acc)·w` is taken in i16
    /// (wrapping; exact for |w| ≤ 127, which net files guarantee), the rest exactly: with
    /// |w| ≤ 127 and at most [`MAX_HIDDEN`] lanes no SIMD partial sum leaves an i32, and the
    /// partial sums are added in i64.
    #[inline]
    pub fn screlu_dot(self, acc: &[i16], weights: &[i16]) -> i64 {
        let n = acc.len();
        assert!(n.is_multiple_of(HIDDEN_STEP) && n <= MAX_HIDDEN && weights.len() == n);
        match self {
            Kernels::Scalar => screlu_dot_scalar(acc, weights),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernels::Avx2 => unsafe { sized!(n, avx2::screlu_dot(acc, weights)) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as above.
            Kernels::Avx512 => unsafe { sized!(n, avx512::screlu_dot(acc, weights)) },
        }
    }
}

fn update_scalar(parent: &[i16], child: &mut [i16], adds: &[&[i16]], subs: &[&[i16]]) {
    for i in 0..parent.len() {
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

fn screlu_dot_scalar(acc: &[i16], weights: &[i16]) -> i64 {
    let mut sum = 0i64;
    for (&a, &w) in acc.iter().zip(weights) {
        let v = a.clamp(0, QA as i16);
        let vw = v.wrapping_mul(w);
        sum += i64::from(i32::from(vw) * i32::from(v));
    }
    sum
}

/// 16 i16 lanes a step. `N` is the slice length, or 0 for "the slice's own length".
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::QA;
    use std::arch::x86_64::*;

    const LANES: usize = 16;

    #[target_feature(enable = "avx2")]
    pub unsafe fn update<'a, const N: usize>(
        parent: &[i16],
        child: &mut [i16],
        adds: impl AsRef<[&'a [i16]]>,
        subs: impl AsRef<[&'a [i16]]>,
    ) {
        let (adds, subs) = (adds.as_ref(), subs.as_ref());
        let n = if N == 0 { parent.len() } else { N };
        for at in (0..n).step_by(LANES) {
            // SAFETY: every slice holds n i16s, n a multiple of LANES (checked by the caller);
            // unaligned loads.
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
    pub unsafe fn screlu_dot<const N: usize>(acc: &[i16], weights: &[i16]) -> i64 {
        let n = if N == 0 { acc.len() } else { N };
        let zero = _mm256_setzero_si256();
        let one = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for at in (0..n).step_by(LANES) {
            // SAFETY: both slices hold n i16s (checked by the caller).
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
        // The eight i32 lanes, widened to i64 and added.
        let wide = _mm256_add_epi64(
            _mm256_cvtepi32_epi64(_mm256_castsi256_si128(sum)),
            _mm256_cvtepi32_epi64(_mm256_extracti128_si256::<1>(sum)),
        );
        let s = _mm_add_epi64(
            _mm256_castsi256_si128(wide),
            _mm256_extracti128_si256::<1>(wide),
        );
        _mm_cvtsi128_si64(s) + _mm_extract_epi64::<1>(s)
    }
}

/// 32 i16 lanes a step. `N` as for AVX2.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::QA;
    use std::arch::x86_64::*;

    const LANES: usize = 32;

    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn update<'a, const N: usize>(
        parent: &[i16],
        child: &mut [i16],
        adds: impl AsRef<[&'a [i16]]>,
        subs: impl AsRef<[&'a [i16]]>,
    ) {
        let (adds, subs) = (adds.as_ref(), subs.as_ref());
        let n = if N == 0 { parent.len() } else { N };
        for at in (0..n).step_by(LANES) {
            // SAFETY: every slice holds n i16s, n a multiple of LANES (checked by the caller);
            // unaligned loads.
            unsafe {
                let mut v = _mm512_loadu_si512(parent.as_ptr().add(at).cast());
                for a in adds {
                    v = _mm512_add_epi16(v, _mm512_loadu_si512(a.as_ptr().add(at).cast()));
                }
                for s in subs {
                    v = _mm512_sub_epi16(v, _mm512_loadu_si512(s.as_ptr().add(at).cast()));
                }
                _mm512_storeu_si512(child.as_mut_ptr().add(at).cast(), v);
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn screlu_dot<const N: usize>(acc: &[i16], weights: &[i16]) -> i64 {
        let n = if N == 0 { acc.len() } else { N };
        let zero = _mm512_setzero_si512();
        let one = _mm512_set1_epi16(QA as i16);
        let mut sum = _mm512_setzero_si512();
        for at in (0..n).step_by(LANES) {
            // SAFETY: both slices hold n i16s (checked by the caller).
            let (a, w) = unsafe {
                (
                    _mm512_loadu_si512(acc.as_ptr().add(at).cast()),
                    _mm512_loadu_si512(weights.as_ptr().add(at).cast()),
                )
            };
            let v = _mm512_min_epi16(_mm512_max_epi16(a, zero), one);
            let vw = _mm512_mullo_epi16(v, w);
            sum = _mm512_add_epi32(sum, _mm512_madd_epi16(vw, v));
        }
        // The sixteen i32 lanes, widened to i64 and added.
        let wide = _mm512_add_epi64(
            _mm512_cvtepi32_epi64(_mm512_castsi512_si256(sum)),
            _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(sum)),
        );
        _mm512_reduce_add_epi64(wide)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn random_vec(rng: &mut StdRng, n: usize, lo: i16, hi: i16) -> Vec<i16> {
        (0..n).map(|_| rng.random_range(lo..=hi)).collect()
    }

    /// Every kernel gives the scalar kernel's integers, at every width the engine compiles
    /// loops for and at others, for every number of columns a move adds and removes,
    /// including where lanes wrap and at the clamp's edges.
    #[test]
    fn every_kernel_equals_the_scalar_one() {
        let mut rng = StdRng::seed_from_u64(5);
        let kernels = Kernels::available();
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512bw") {
            assert_eq!(kernels.last(), Some(&Kernels::Avx512));
        }
        for n in [32, 96, 256, 384, 512, 640, 768, 1024] {
            for round in 0..400 {
                let (lo, hi) = if round % 5 == 0 {
                    (i16::MIN, i16::MAX)
                } else {
                    (-400, 400)
                };
                let parent = random_vec(&mut rng, n, lo, hi);
                let cols: Vec<Vec<i16>> = (0..4).map(|_| random_vec(&mut rng, n, lo, hi)).collect();
                let adds: Vec<&[i16]> = cols[..round % 3].iter().map(Vec::as_slice).collect();
                // Every pair of 0-2 added and 0-2 removed columns (the kernels unroll the
                // shapes of moves, captures and castling).
                let removed = (round / 3) % 3;
                let subs: Vec<&[i16]> = cols[2..2 + removed].iter().map(Vec::as_slice).collect();
                let weights = random_vec(&mut rng, n, -127, 127);
                let mut expected = vec![0; n];
                Kernels::Scalar.update(&parent, &mut expected, &adds, &subs);
                let dot = Kernels::Scalar.screlu_dot(&parent, &weights);
                for &k in &kernels {
                    let mut child = vec![0; n];
                    k.update(&parent, &mut child, &adds, &subs);
                    assert_eq!(child, expected, "{k:?} update, width {n}");
                    assert_eq!(k.screlu_dot(&parent, &weights), dot, "{k:?} dot, width {n}");
                }
            }
            // The largest sum the output layer can meet: every lane at QA, every weight at
            // ±127. Exact in every kernel, beyond the i32 range at the larger widths.
            for w in [127i16, -127] {
                let acc = vec![QA as i16; n];
                let weights = vec![w; n];
                let exact = i64::from(QA * QA) * i64::from(w) * n as i64;
                for &k in &kernels {
                    assert_eq!(k.screlu_dot(&acc, &weights), exact, "{k:?}, width {n}");
                }
            }
        }
    }

    /// `SCOUT_SIMD` names the kernels; anything else names none.
    #[test]
    fn kernels_are_named() {
        assert_eq!(Kernels::named("scalar"), Some(Kernels::Scalar));
        #[cfg(target_arch = "x86_64")]
        assert_eq!(Kernels::named("AVX512"), Some(Kernels::Avx512));
        assert_eq!(Kernels::named("neon3"), None);
        assert!(Kernels::available().contains(&Kernels::detect()));
    }
}
