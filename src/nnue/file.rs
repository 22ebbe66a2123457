//! The net file format, little-endian throughout:
//!
//! | bytes | field |
//! |---|---|
//! | 8 | magic `SCOUTNET` |
//! | 4 | format version: 1 without king buckets, 2 with |
//! | 7 × 4 | architecture: inputs (768 × king buckets), hidden (per perspective), output buckets (1 or 8), activation (1 = SCReLU), QA, QB, SCALE |
//! | 72 (version 2 only) | king buckets: count, mirror (u32 each), the bucket of each king square (64 × u8; `inputs.rs`) |
//! | inputs × hidden × 2 | feature weights, i16, feature by feature |
//! | hidden × 2 | feature biases, i16 |
//! | buckets × 2 × hidden × 2 | output weights, i16, bucket by bucket (side to move's half first) |
//! | buckets × 4 | output biases, i32 |
//! | 8 | checksum: 64-bit FNV-1a of every byte before it |
//!
//! A file whose magic, version, architecture, length or checksum does not match what this
//! engine computes is refused with a message saying which. The hidden width may be any the
//! engine plays (`nnue::valid_hidden`: a multiple of 32 up to 1024). Nets without king buckets
//! are written as version 1, so the files of generations 0–6 keep their bytes.

use super::{
    BUCKET_COUNTS, HIDDEN_STEP, KingBuckets, MAX_HIDDEN, Network, OUTPUT_WEIGHT_LIMIT, QA, QB,
    SCALE, valid_hidden,
};

const MAGIC: &[u8; 8] = b"SCOUTNET";
const SCRELU: u32 = 1;
/// The header before the weights: magic, version, architecture.
const HEADER: usize = 8 + 4 + 7 * 4;
/// The king-bucket layout's bytes in a version-2 file.
const LAYOUT: usize = 72;

/// The format version of a net with these king buckets.
fn version(king_buckets: &KingBuckets) -> u32 {
    if *king_buckets == KingBuckets::NONE {
        1
    } else {
        2
    }
}

fn architecture(inputs: usize, hidden: usize, buckets: usize) -> [u32; 7] {
    [
        inputs as u32,
        hidden as u32,
        buckets as u32,
        SCRELU,
        QA as u32,
        QB as u32,
        SCALE as u32,
    ]
}

/// The length of a net file of this engine's architecture with these king buckets, `hidden`
/// units and `buckets` output buckets.
pub fn file_len(king_buckets: &KingBuckets, hidden: usize, buckets: usize) -> usize {
    let layout = if version(king_buckets) == 2 {
        LAYOUT
    } else {
        0
    };
    HEADER
        + layout
        + (king_buckets.features() * hidden + hidden + buckets * 2 * hidden) * 2
        + buckets * 4
        + 8
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Serialises a network.
pub fn write(net: &Network) -> Vec<u8> {
    let kb = &net.king_buckets;
    let mut out = Vec::with_capacity(file_len(kb, net.hidden, net.buckets()));
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version(kb).to_le_bytes());
    for v in architecture(kb.features(), net.hidden, net.buckets()) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    if version(kb) == 2 {
        out.extend_from_slice(&kb.to_bytes());
    }
    for w in net
        .feature_weights
        .iter()
        .chain(&net.feature_bias)
        .chain(&net.output_weights)
    {
        out.extend_from_slice(&w.to_le_bytes());
    }
    for b in &net.output_bias {
        out.extend_from_slice(&b.to_le_bytes());
    }
    let sum = fnv1a(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Reads a network, or says why the bytes are not one this engine can use.
pub fn read(bytes: &[u8]) -> Result<Network, String> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Err("not a Scout net file (no SCOUTNET header)".to_string());
    }
    let (king_buckets, weights_at) = match u32_at(bytes, 8) {
        1 => (KingBuckets::NONE, HEADER),
        2 if bytes.len() >= HEADER + LAYOUT => {
            let kb = KingBuckets::from_bytes(&bytes[HEADER..HEADER + LAYOUT])?;
            if kb == KingBuckets::NONE {
                // Written as version 1; a version-2 file of it would not round-trip.
                return Err("a version-2 net without king buckets".to_string());
            }
            (kb, HEADER + LAYOUT)
        }
        2 => return Err("truncated: the king-bucket layout is cut off".to_string()),
        v => {
            return Err(format!(
                "net format version {v}; this engine reads versions 1 and 2"
            ));
        }
    };
    let arch: Vec<u32> = (0..7).map(|i| u32_at(bytes, 12 + 4 * i)).collect();
    let (hidden, buckets) = (arch[1] as usize, arch[2] as usize);
    if !BUCKET_COUNTS.contains(&buckets)
        || !valid_hidden(hidden)
        || arch != architecture(king_buckets.features(), hidden, buckets)
    {
        return Err(format!(
            "architecture {}->{}x2->{} (activation {}, QA {}, QB {}, scale {}); this engine is \
             768xK->Nx2->1, K the king buckets ({}), N a multiple of {HIDDEN_STEP} up to \
             {MAX_HIDDEN}, with 1 or 8 output buckets (SCReLU, QA {QA}, QB {QB}, scale {SCALE})",
            arch[0], arch[1], arch[2], arch[3], arch[4], arch[5], arch[6], king_buckets.count
        ));
    }
    let len = file_len(&king_buckets, hidden, buckets);
    if bytes.len() != len {
        return Err(format!(
            "{} bytes; a net of this architecture has {len} (truncated or padded)",
            bytes.len(),
        ));
    }
    let (body, sum) = bytes.split_at(bytes.len() - 8);
    let stored = u64::from_le_bytes(sum.try_into().expect("8 bytes"));
    if fnv1a(body) != stored {
        return Err("checksum mismatch: the file is corrupted".to_string());
    }
    let biases_at = body.len() - 4 * buckets;
    let mut values = body[weights_at..biases_at]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]));
    let mut take = |n: usize| values.by_ref().take(n).collect::<Vec<i16>>();
    let feature_weights = take(king_buckets.features() * hidden);
    let feature_bias = take(hidden);
    let output_weights = take(buckets * 2 * hidden);
    let output_bias = body[biases_at..]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    let limit = (OUTPUT_WEIGHT_LIMIT * QB as f32) as i16;
    if output_weights.iter().any(|w| !(-limit..=limit).contains(w)) {
        return Err(format!(
            "output weights beyond ±{limit} (the SCReLU product would not fit 16 bits)"
        ));
    }
    Ok(Network {
        hidden,
        king_buckets,
        feature_weights,
        feature_bias,
        output_weights,
        output_bias,
    })
}

/// Reads a net file from disk.
pub fn load(path: &str) -> Result<Network, String> {
    // Only a regular file of a sensible size is read (not /dev/zero, a directory or a pipe).
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{path} is not a regular file"));
    }
    if meta.len() > 64 << 20 {
        return Err(format!(
            "{path}: {} bytes is far too large for a net",
            meta.len()
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    read(&bytes).map_err(|e| format!("{path}: {e}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample(buckets: usize) -> Network {
        sample_of(crate::nnue::DEFAULT_HIDDEN, buckets)
    }

    pub(crate) fn sample_of(hidden: usize, buckets: usize) -> Network {
        sample_with(KingBuckets::NONE, hidden, buckets)
    }

    pub(crate) fn sample_with(king_buckets: KingBuckets, hidden: usize, buckets: usize) -> Network {
        let mut x = 1u32;
        let mut next = move |m: i32| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((x >> 8) as i32 % (2 * m + 1) - m) as i16
        };
        Network {
            hidden,
            king_buckets,
            feature_weights: (0..king_buckets.features() * hidden)
                .map(|_| next(60))
                .collect(),
            feature_bias: (0..hidden).map(|_| next(100)).collect(),
            output_weights: (0..buckets * 2 * hidden).map(|_| next(127)).collect(),
            output_bias: (0..buckets as i32).map(|b| 1234 - 100 * b).collect(),
        }
    }

    #[test]
    fn nets_round_trip_and_damage_is_refused() {
        for (hidden, buckets) in [(256, 1), (256, 8), (32, 1), (384, 1), (1024, 8)] {
            let net = sample_of(hidden, buckets);
            let bytes = write(&net);
            assert_eq!(bytes.len(), file_len(&KingBuckets::NONE, hidden, buckets));
            assert_eq!(bytes[8], 1, "version 1 without king buckets");
            let back = read(&bytes).unwrap();
            assert_eq!((back.hidden, back.buckets()), (hidden, buckets));
            assert_eq!(back.feature_weights, net.feature_weights);
            assert_eq!(back.feature_bias, net.feature_bias);
            assert_eq!(back.output_weights, net.output_weights);
            assert_eq!(back.output_bias, net.output_bias);
        }
        // A bucket count this engine has no rule for.
        let mut four = write(&sample(8));
        four[20..24].copy_from_slice(&4u32.to_le_bytes());
        assert!(read(&four).unwrap_err().contains("architecture"));

        let net = sample(8);
        let bytes = write(&net);

        let mut flipped = bytes.clone();
        flipped[5000] ^= 4;
        assert!(read(&flipped).unwrap_err().contains("checksum"));
        assert!(
            read(&bytes[..bytes.len() - 1])
                .unwrap_err()
                .contains("truncated")
        );
        // Hidden widths the engine has no loops for, and one it plays with another length.
        for hidden in [0u32, 16, 500, 1056] {
            let mut arch = bytes.clone();
            arch[16..20].copy_from_slice(&hidden.to_le_bytes());
            assert!(
                read(&arch).unwrap_err().contains("architecture"),
                "{hidden}"
            );
        }
        let mut arch = bytes.clone();
        arch[16..20].copy_from_slice(&512u32.to_le_bytes());
        assert!(read(&arch).unwrap_err().contains("truncated or padded"));
        let mut version = bytes.clone();
        version[8] = 9;
        assert!(read(&version).unwrap_err().contains("version"));
        assert!(read(b"hello").unwrap_err().contains("not a Scout net"));
        // An output weight the SIMD product cannot hold (i16::MIN has no absolute value).
        let mut extreme = sample(1);
        extreme.output_weights[3] = i16::MIN;
        assert!(
            read(&write(&extreme))
                .unwrap_err()
                .contains("output weights")
        );
        assert!(
            load("/nonexistent/net.bin")
                .unwrap_err()
                .contains("cannot read")
        );
    }

    /// A net with king buckets is a version-2 file with its layout; the layout must agree with
    /// the inputs the architecture line names, and damage to it is refused.
    #[test]
    fn nets_with_king_buckets_round_trip() {
        let kb = KingBuckets::mirrored(4).unwrap();
        let net = sample_with(kb, 64, 8);
        let bytes = write(&net);
        assert_eq!(bytes.len(), file_len(&kb, 64, 8));
        assert_eq!((bytes[8], u32_at(&bytes, 12)), (2, 4 * 768));
        let back = read(&bytes).unwrap();
        assert_eq!(back.king_buckets, kb);
        assert_eq!(back.feature_weights, net.feature_weights);
        assert_eq!(back.output_bias, net.output_bias);
        // Another layout's bucket count under the same architecture line.
        let mut count = bytes.clone();
        count[HEADER..HEADER + 4].copy_from_slice(&8u32.to_le_bytes());
        assert!(read(&count).unwrap_err().contains("architecture"));
        // A square mapped to a bucket the net does not have.
        let mut map = bytes.clone();
        map[HEADER + 8 + 20] = 9;
        assert!(read(&map).unwrap_err().contains("king buckets"));
        assert!(
            read(&bytes[..HEADER + 10])
                .unwrap_err()
                .contains("truncated")
        );
        assert!(
            read(&bytes[..bytes.len() - 2])
                .unwrap_err()
                .contains("truncated")
        );
        // The layout of no king buckets is written as version 1, never as version 2.
        let mut none = write(&sample_with(KingBuckets::NONE, 64, 8));
        none[8] = 2;
        none.splice(HEADER..HEADER, KingBuckets::NONE.to_bytes());
        assert!(read(&none).unwrap_err().contains("without king buckets"));
    }

    /// Every generation's net file reads and writes back byte for byte (the format's version 1
    /// is unchanged by king buckets). (The training run's checkpoint beside them is not a net.)
    #[test]
    fn the_generations_nets_round_trip_byte_for_byte() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("nets");
        let mut nets = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "nnue") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let net = read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(net.king_buckets, KingBuckets::NONE);
            assert!(write(&net) == bytes, "{}", path.display());
            nets += 1;
        }
        assert!(nets >= 6, "only {nets} nets in nets/");
    }
}
