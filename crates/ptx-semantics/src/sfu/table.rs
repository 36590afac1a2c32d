//! The embedded H100 tables: chunks of zlib-compressed first differences
//! (`data/h100-sfu/gen_tables.py` writes them; its docstring is the format). A table's header is
//! read on first use and each 65,536-value chunk is decoded once, when an input first needs it,
//! so a kernel pays (in time and memory) only for the parts of the tables its inputs reach.

use flate2::read::ZlibDecoder;
use std::io::Read;
use std::sync::OnceLock;

/// One embedded table of output bit patterns.
pub(crate) struct LazyTable {
    blob: &'static [u8],
    chunks: OnceLock<Chunks>,
}

/// The parsed header of a blob and its chunks, each decoded on first use.
struct Chunks {
    header: Header,
    decoded: Box<[OnceLock<Box<[u32]>>]>,
}

impl LazyTable {
    pub(crate) const fn new(blob: &'static [u8]) -> Self {
        LazyTable {
            blob,
            chunks: OnceLock::new(),
        }
    }

    /// Value `i` (`i` below the table's length: the callers index by significand bits).
    #[inline]
    pub(crate) fn at(&self, i: usize) -> u32 {
        // The blobs are compiled into the crate and every one is decoded and checked against the
        // generator's manifest by `tests/sfu_h100.rs`, so a failure here is a build defect, never
        // a consequence of user input.
        const CORRUPT: &str = "embedded H100 SFU table is corrupt (rerun gen_tables.py)";
        let c = self.chunks.get_or_init(|| {
            let header = Header::parse(self.blob).expect(CORRUPT);
            let decoded = (0..header.ends.len()).map(|_| OnceLock::new()).collect();
            Chunks { header, decoded }
        });
        let (k, j) = (i / c.header.chunk_len, i % c.header.chunk_len);
        c.decoded[k].get_or_init(|| c.header.chunk(self.blob, k).expect(CORRUPT))[j]
    }
}

/// Embeds `data/h100-sfu/tables/<name>.z` as a [`LazyTable`].
macro_rules! table {
    ($name:expr) => {
        $crate::sfu::table::LazyTable::new(include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/data/h100-sfu/tables/",
            $name,
            ".z"
        )))
    };
}
pub(crate) use table;

/// Why a blob could not be decoded.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Missing `SFU2` magic, or a header that does not fit the blob.
    Header,
    /// A chunk's zlib stream is damaged.
    Inflate,
    /// A chunk's difference width is not 1, 2 or 4.
    Width(u32),
    /// A chunk does not hold the number of values the header calls for.
    Length,
}

/// A blob's header: value count, chunk length and the end offset of every chunk.
struct Header {
    count: usize,
    chunk_len: usize,
    /// Where the chunks start in the blob.
    base: usize,
    ends: Vec<usize>,
}

impl Header {
    fn parse(blob: &[u8]) -> Result<Header, DecodeError> {
        let word = |i: usize| -> Result<usize, DecodeError> {
            let b = blob.get(i..i + 4).ok_or(DecodeError::Header)?;
            Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        };
        if blob.get(..4) != Some(b"SFU2") {
            return Err(DecodeError::Header);
        }
        let (count, chunk_len, n) = (word(4)?, word(8)?, word(12)?);
        if chunk_len == 0 || count.div_ceil(chunk_len) != n || n == 0 {
            return Err(DecodeError::Header);
        }
        let ends = (0..n)
            .map(|k| word(16 + 4 * k))
            .collect::<Result<Vec<_>, _>>()?;
        let base = 16 + 4 * n;
        if ends.windows(2).any(|w| w[0] > w[1]) || base + ends[n - 1] != blob.len() {
            return Err(DecodeError::Header);
        }
        Ok(Header {
            count,
            chunk_len,
            base,
            ends,
        })
    }

    /// Decodes chunk `k`.
    fn chunk(&self, blob: &[u8], k: usize) -> Result<Box<[u32]>, DecodeError> {
        let start = self.base + if k == 0 { 0 } else { self.ends[k - 1] };
        let mut raw = Vec::new();
        ZlibDecoder::new(&blob[start..self.base + self.ends[k]])
            .read_to_end(&mut raw)
            .map_err(|_| DecodeError::Inflate)?;
        let len = self.chunk_len.min(self.count - k * self.chunk_len);
        if raw.len() < 8 {
            return Err(DecodeError::Length);
        }
        let width = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        let first = u32::from_le_bytes([raw[4], raw[5], raw[6], raw[7]]);
        if !matches!(width, 1 | 2 | 4) {
            return Err(DecodeError::Width(width));
        }
        let planes = &raw[8..];
        let n = len - 1;
        if planes.len() != n * width as usize {
            return Err(DecodeError::Length);
        }
        let mut out = Vec::with_capacity(len);
        out.push(first);
        let mut v = first;
        for i in 0..n {
            // Reassemble difference i from its byte planes, sign-extending the narrow widths.
            let d = match width {
                1 => planes[i] as i8 as i32 as u32,
                2 => i16::from_le_bytes([planes[i], planes[n + i]]) as i32 as u32,
                _ => u32::from_le_bytes([
                    planes[i],
                    planes[n + i],
                    planes[2 * n + i],
                    planes[3 * n + i],
                ]),
            };
            v = v.wrapping_add(d);
            out.push(v);
        }
        Ok(out.into_boxed_slice())
    }
}

/// Decodes a whole blob (`gen_tables.py` format) into its values.
pub fn decode(blob: &[u8]) -> Result<Vec<u32>, DecodeError> {
    let h = Header::parse(blob)?;
    let mut out = Vec::with_capacity(h.count);
    for k in 0..h.ends.len() {
        out.extend_from_slice(&h.chunk(blob, k)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::ZlibEncoder;
    use std::io::Write;

    /// The generator's format, with chunks of `chunk_len` values of difference width `width`.
    fn encode(values: &[u32], chunk_len: usize, width: u32) -> Vec<u8> {
        let chunks: Vec<Vec<u8>> = values
            .chunks(chunk_len)
            .map(|c| {
                let n = c.len() - 1;
                let mut planes = vec![0u8; n * width as usize];
                for i in 0..n {
                    let d = c[i + 1].wrapping_sub(c[i]).to_le_bytes();
                    for b in 0..width as usize {
                        planes[b * n + i] = d[b];
                    }
                }
                let mut raw = width.to_le_bytes().to_vec();
                raw.extend_from_slice(&c[0].to_le_bytes());
                raw.extend_from_slice(&planes);
                let mut z = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
                z.write_all(&raw).unwrap();
                z.finish().unwrap()
            })
            .collect();
        let mut out = b"SFU2".to_vec();
        for w in [values.len(), chunk_len, chunks.len()] {
            out.extend_from_slice(&(w as u32).to_le_bytes());
        }
        let mut end = 0;
        for c in &chunks {
            end += c.len();
            out.extend_from_slice(&(end as u32).to_le_bytes());
        }
        for c in &chunks {
            out.extend_from_slice(c);
        }
        out
    }

    #[test]
    fn decodes_every_width_and_chunking_and_rejects_damage() {
        let v = [5u32, 3, 0x8000_0000, 0x7fff_ffff, 0x7fff_fffe];
        assert_eq!(decode(&encode(&v, 2, 4)).unwrap(), v);
        assert_eq!(decode(&encode(&v, 5, 4)).unwrap(), v);
        let small = [100u32, 90, 217, 0, 127];
        assert_eq!(decode(&encode(&small, 3, 2)).unwrap(), small);
        let tiny = [7u32, 8, 0, 127, 1];
        assert_eq!(decode(&encode(&tiny, 4, 1)).unwrap(), tiny);
        let lazy = LazyTable::new(Box::leak(encode(&v, 2, 4).into_boxed_slice()));
        assert_eq!((0..5).map(|i| lazy.at(i)).collect::<Vec<_>>(), v);
        assert_eq!(decode(b"junk"), Err(DecodeError::Header));
        assert_eq!(decode(&encode(&v, 2, 3)), Err(DecodeError::Width(3)));
        let mut cut = encode(&v, 2, 4);
        cut.pop();
        assert_eq!(decode(&cut), Err(DecodeError::Header));
        let mut bad = encode(&v, 5, 4);
        let last = bad.len() - 3;
        bad[last] ^= 0xff;
        assert_eq!(decode(&bad), Err(DecodeError::Inflate));
    }
}
