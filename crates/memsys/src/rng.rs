//! The seeded generator behind fraction policies: SplitMix64 (Steele, Lea, Flood 2014), so a
//! run is reproducible from the configuration's seed alone.

#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `sixteenths / 16`.
    #[inline]
    pub fn chance_in_16(&mut self, sixteenths: u32) -> bool {
        ((self.next_u64() >> 60) as u32) < sixteenths
    }

    /// True with probability `sixteenths / 16` for `key`, the same every time: the generator's
    /// first output from seed `key`, judged as [`SplitMix64::chance_in_16`] judges a draw
    /// (an access policy window's hit lines, `system/l2_control.rs`).
    #[inline]
    pub fn keyed_chance_in_16(key: u64, sixteenths: u32) -> bool {
        SplitMix64::new(key).chance_in_16(sixteenths)
    }
}
