//! The first layer's inputs: which feature a piece is, from each side's view.
//!
//! Every piece is one of 768 features (colour relative to the perspective × 6 roles × 64
//! squares); Black sees the board mirrored rank-wise (square ^ 56), so both sides look up the
//! board from their own first rank. A net may also choose its features by where the
//! perspective's own king stands ([`KingBuckets`]): with `mirror` the board is mirrored file-wise
//! (square ^ 7) whenever that king is on files e–h, so the king is always on a–d, and the king's
//! square (seen so) picks one of `count` buckets, each with its own 768 features. The net's
//! first layer then has `count · 768` columns; a king move that changes the bucket or the mirror
//! changes every feature of its side's view, which the accumulators handle with a cache
//! (`accumulator.rs`).
//!
//! No generation's net has king buckets so far ([`KingBuckets::NONE`]: one bucket, no
//! mirror), and their files say nothing about them (format version 1, `file.rs`).

use shakmaty::{Color, Piece, Square};

/// Features of one bucket.
pub const FEATURES: usize = 768;

/// How a net chooses its features by the square of the perspective's own king.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingBuckets {
    /// Buckets (feature sets of 768).
    pub count: usize,
    /// Mirror the board file-wise when the king is on files e–h.
    pub mirror: bool,
    /// The bucket of each king square, seen from the perspective (square ^ 56 for Black); with
    /// `mirror` the squares on e–h repeat their mirror images'.
    pub map: [u8; 64],
}

/// One side's view of the board: where its bucket's features start and how squares are seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    perspective: Color,
    offset: u16,
    xor: u8,
}

impl View {
    /// The feature index of `piece` on `sq` in this view.
    #[inline]
    pub fn feature(self, piece: Piece, sq: Square) -> usize {
        let theirs = usize::from(piece.color != self.perspective);
        self.offset as usize
            + (theirs * 6 + piece.role as usize - 1) * 64
            + (sq as usize ^ self.xor as usize)
    }

    /// A number for each view of a net with n buckets, below 4n: bucket, mirror, perspective.
    #[inline]
    pub fn slot(self) -> usize {
        let bucket = self.offset as usize / FEATURES;
        (bucket * 2 + usize::from(self.xor & 7 != 0)) * 2 + self.perspective as usize
    }
}

impl KingBuckets {
    /// One bucket, no mirror: the plain 768 features.
    pub const NONE: KingBuckets = KingBuckets {
        count: 1,
        mirror: false,
        map: [0; 64],
    };

    /// The bucket counts `train --king-buckets` offers (all mirrored).
    pub const COUNTS: [usize; 4] = [1, 2, 4, 8];

    /// The mirrored layout with `count` buckets (one of [`Self::COUNTS`]), finer near the
    /// king's home where kings mostly stand: 2 splits the first rank from the rest; 4 splits
    /// the first rank by wing (a–b, c–d), then the second rank, then the rest; 8 splits the
    /// first rank file by file, the second by wing, then ranks 3–4 and 5–8.
    pub fn mirrored(count: usize) -> Option<KingBuckets> {
        // Buckets of the files a–d on rank 1, rank 2, ranks 3–4 and ranks 5–8.
        let rows: [[u8; 4]; 4] = match count {
            1 => [[0; 4]; 4],
            2 => [[0; 4], [1; 4], [1; 4], [1; 4]],
            4 => [[0, 0, 1, 1], [2; 4], [3; 4], [3; 4]],
            8 => [[0, 1, 2, 3], [4, 4, 5, 5], [6; 4], [7; 4]],
            _ => return None,
        };
        let mut map = [0; 64];
        for (sq, bucket) in map.iter_mut().enumerate() {
            let (rank, file) = (sq / 8, sq % 8);
            let row = match rank {
                0 => 0,
                1 => 1,
                2 | 3 => 2,
                _ => 3,
            };
            *bucket = rows[row][file.min(7 - file)];
        }
        Some(KingBuckets {
            count,
            mirror: true,
            map,
        })
    }

    /// Features of the net's first layer.
    pub fn features(&self) -> usize {
        self.count * FEATURES
    }

    /// `perspective`'s view when its king stands on `king`.
    #[inline]
    pub fn view(&self, perspective: Color, king: Square) -> View {
        let ranks = if perspective == Color::Black { 56 } else { 0 };
        let k = king as usize ^ ranks;
        let files = if self.mirror && k % 8 >= 4 { 7 } else { 0 };
        View {
            perspective,
            offset: (self.map[k] as usize * FEATURES) as u16,
            xor: (ranks | files) as u8,
        }
    }

    /// `perspective`'s view of `board` (the king's square from the board; a board without
    /// that king, which only a person's question makes, is seen as with the king on a1).
    #[inline]
    pub fn view_of(&self, perspective: Color, board: &shakmaty::Board) -> View {
        self.view(
            perspective,
            board.king_of(perspective).unwrap_or(Square::A1),
        )
    }

    /// The 72 bytes a file stores: count and mirror (u32 each, little-endian), then the map.
    pub fn to_bytes(&self) -> [u8; 72] {
        let mut out = [0; 72];
        out[..4].copy_from_slice(&(self.count as u32).to_le_bytes());
        out[4..8].copy_from_slice(&u32::from(self.mirror).to_le_bytes());
        out[8..].copy_from_slice(&self.map);
        out
    }

    /// Reads [`Self::to_bytes`]'s bytes, or says what is wrong with them.
    pub fn from_bytes(bytes: &[u8]) -> Result<KingBuckets, String> {
        if bytes.len() != 72 {
            return Err("truncated king-bucket layout".to_string());
        }
        let count = u32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")) as usize;
        let mirror = match u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) {
            0 => false,
            1 => true,
            m => return Err(format!("king-bucket mirror flag {m}")),
        };
        let map: [u8; 64] = bytes[8..].try_into().expect("64 bytes");
        if !(1..=32).contains(&count) || map.iter().any(|&b| b as usize >= count) {
            return Err(format!(
                "king buckets: {count} buckets, a square mapped to {}",
                map.iter().max().unwrap_or(&0)
            ));
        }
        if mirror && (0..64).any(|sq| map[sq] != map[sq ^ 7]) {
            return Err("king buckets: a mirrored layout whose map is not mirrored".to_string());
        }
        Ok(KingBuckets { count, mirror, map })
    }

    /// A description for people: "none", or "4 mirrored".
    pub fn describe(&self) -> String {
        if *self == KingBuckets::NONE {
            "none".to_string()
        } else {
            format!(
                "{} {}",
                self.count,
                if self.mirror {
                    "mirrored"
                } else {
                    "unmirrored"
                }
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    /// Without king buckets, a feature is colour relative to the perspective, role, square
    /// (rank-mirrored for Black), wherever the king is.
    #[test]
    fn the_plain_features_ignore_the_king() {
        let knight = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        for king in [Square::E1, Square::H8, Square::A4] {
            let white = KingBuckets::NONE.view(Color::White, king);
            let black = KingBuckets::NONE.view(Color::Black, king);
            assert_eq!(white.feature(knight, Square::G1), 64 + 6);
            assert_eq!(black.feature(knight, Square::G1), (6 + 1) * 64 + 62);
        }
    }

    /// Mirrored buckets: a king on e–h sees the board file-mirrored, the bucket follows the
    /// king's rank and wing from its own side, and both colours see the same position alike
    /// when the board is mirrored rank-wise with the colours swapped.
    #[test]
    fn mirrored_buckets_follow_the_kings_square() {
        let kb = KingBuckets::mirrored(8).unwrap();
        let b = |c, k| kb.view(c, k).offset as usize / FEATURES;
        assert_eq!(
            (b(Color::White, Square::A1), b(Color::White, Square::D1)),
            (0, 3)
        );
        assert_eq!(b(Color::White, Square::E1), 3);
        assert_eq!(b(Color::White, Square::G1), 1);
        assert_eq!(
            (b(Color::White, Square::G2), b(Color::White, Square::C2)),
            (4, 5)
        );
        assert_eq!(b(Color::White, Square::B4), 6);
        assert_eq!(b(Color::White, Square::H8), 7);
        assert_eq!(b(Color::Black, Square::G8), 1);
        assert_eq!(b(Color::Black, Square::E1), 7);
        let pawn = Piece {
            color: Color::White,
            role: Role::Pawn,
        };
        let (kingside, queenside) = (
            kb.view(Color::White, Square::G1),
            kb.view(Color::White, Square::B1),
        );
        assert_eq!(
            kingside.feature(pawn, Square::H2),
            queenside.feature(pawn, Square::A2)
        );
        assert_eq!(kingside.feature(pawn, Square::H2), FEATURES + 8);
        // The same position with colours swapped and ranks mirrored: the same features.
        let black_pawn = Piece {
            color: Color::Black,
            role: Role::Pawn,
        };
        assert_eq!(
            kb.view(Color::Black, Square::G8)
                .feature(black_pawn, Square::H7),
            kingside.feature(pawn, Square::H2)
        );
        for count in KingBuckets::COUNTS {
            let kb = KingBuckets::mirrored(count).unwrap();
            let used: std::collections::BTreeSet<u8> = kb.map.iter().copied().collect();
            assert_eq!(used.len(), count);
            assert!((0..64).all(|sq| kb.map[sq] == kb.map[sq ^ 7]));
        }
        assert!(KingBuckets::mirrored(3).is_none());
    }

    #[test]
    fn layouts_round_trip_and_bad_ones_are_refused() {
        for kb in [KingBuckets::NONE, KingBuckets::mirrored(4).unwrap()] {
            assert_eq!(KingBuckets::from_bytes(&kb.to_bytes()), Ok(kb));
        }
        let mut bad = KingBuckets::mirrored(4).unwrap().to_bytes();
        bad[8] = 4;
        assert!(KingBuckets::from_bytes(&bad).is_err());
        let mut lopsided = KingBuckets::mirrored(4).unwrap().to_bytes();
        lopsided[8 + 7] = 1;
        assert!(
            KingBuckets::from_bytes(&lopsided)
                .unwrap_err()
                .contains("not mirrored")
        );
        let mut flag = KingBuckets::NONE.to_bytes();
        flag[4] = 2;
        assert!(KingBuckets::from_bytes(&flag).is_err());
        assert!(KingBuckets::from_bytes(&flag[..71]).is_err());
        assert_eq!(KingBuckets::mirrored(4).unwrap().describe(), "4 mirrored");
    }
}
