//! Splitting a trace line into its fields: comments, separators (any Unicode whitespace),
//! hex numbers, and the field-count errors with their columns.

use super::*;

/// The value of each hex digit byte; 0xFF for any other byte.
pub(super) const HEX: [u8; 256] = {
    let mut t = [0xFFu8; 256];
    let mut i = 0;
    while i < 10 {
        t[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        t[b'a' as usize + i] = 10 + i as u8;
        t[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    t
};

pub(super) fn parse_hex(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    // Leading zeros do not count towards the 16 digits a u64 holds.
    let digits = digits.as_bytes();
    let significant = &digits[digits.iter().take_while(|&&b| b == b'0').count()..];
    if digits.is_empty() || significant.len() > 16 {
        return None;
    }
    let mut v: u64 = 0;
    let mut bad = 0u8;
    for &b in significant {
        let d = HEX[usize::from(b)];
        bad |= d;
        v = (v << 4) | u64::from(d & 0x0F);
    }
    (bad & 0xF0 == 0).then_some(v)
}
/// The fields of an access line.
pub(super) struct Fields<'a> {
    pub(super) sm: u32,
    /// The issuing warp (`<sm>:<warp>`; 0 when the field has no `:`).
    pub(super) warp: u32,
    pub(super) op: &'a str,
    pub(super) op_col: usize,
    pub(super) addr: u64,
    pub(super) bytes: u32,
    pub(super) policy: Option<u64>,
}

/// Whether `b` separates fields (the ASCII characters `char::is_whitespace` accepts).
#[inline]
pub(super) fn is_separator(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// Splits a line (comment removed) into at most six fields with their 1-based columns, and
/// counts them (a sixth one only to report too many). Fields are separated by whitespace.
pub(super) fn split_fields(body: &str) -> ([(&str, usize); 6], usize) {
    let mut fields = [("", 0usize); 6];
    let mut count = 0;
    let bytes = body.as_bytes();
    // Fast path: ASCII with no control characters but tabs, so spaces and tabs are the only
    // separators and memchr finds them (the check folds without early exit: vectorized).
    let plain = bytes.iter().fold(0u8, |a, &b| {
        a | (b & 0x80) | u8::from(b < 0x20 && b != b'\t')
    }) == 0;
    if plain {
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b' ' || bytes[i] == b'\t' {
                i += 1;
                continue;
            }
            let end = memchr::memchr2(b' ', b'\t', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            if count < fields.len() {
                fields[count] = (&body[i..end], i + 1);
            }
            count += 1;
            i = end;
        }
        return (fields, count);
    }
    let mut start = None;
    let mut i = 0;
    loop {
        let (space, len) = match bytes.get(i) {
            None => (true, 1),
            Some(&b) if b.is_ascii() => (is_separator(b), 1),
            // A multi-byte character (`i` is always on a character boundary).
            Some(_) => {
                let c = body[i..].chars().next().unwrap_or(' ');
                (c.is_whitespace(), c.len_utf8())
            }
        };
        match (space, start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                if count < fields.len() {
                    fields[count] = (&body[s..i], s + 1);
                }
                count += 1;
                start = None;
            }
            _ => {}
        }
        if i >= bytes.len() {
            break;
        }
        i += len;
    }
    (fields, count)
}

/// The fields of line number `line`; `Ok(None)` for blank and comment lines.
pub(super) fn parse_fields(text: &str, line: usize) -> Result<Option<Fields<'_>>, TraceError> {
    let body = match memchr_hash(text) {
        Some(i) => &text[..i],
        None => text,
    };
    let (fields, count) = split_fields(body);
    if count == 0 {
        return Ok(None);
    }
    if !(4..=5).contains(&count) {
        return Err(err(
            line,
            1,
            format!(
                "expected `<sm> <op> <hex-address> <bytes> [<hex-policy>]`, found {count} fields"
            ),
        ));
    }
    let (sm_field, sm_col) = fields[0];
    let (sm_text, warp_text) = match sm_field.split_once(':') {
        Some((s, w)) => (s, Some(w)),
        None => (sm_field, None),
    };
    let sm: u32 = sm_text.parse().map_err(|_| {
        err(
            line,
            sm_col,
            format!("SM index `{sm_text}` is not a decimal number"),
        )
    })?;
    let warp: u32 = match warp_text {
        None => 0,
        Some(w) => w.parse().map_err(|_| {
            err(
                line,
                sm_col + sm_text.len() + 1,
                format!("warp index `{w}` is not a decimal number"),
            )
        })?,
    };
    let (addr_text, addr_col) = fields[2];
    let addr = parse_hex(addr_text).ok_or_else(|| {
        err(
            line,
            addr_col,
            format!("address `{addr_text}` is not a 0x-prefixed hex number"),
        )
    })?;
    let (bytes_text, bytes_col) = fields[3];
    let bytes: u32 = bytes_text
        .parse()
        .ok()
        .filter(|b| (1..=memsys::MAX_LANE_BYTES).contains(b))
        .ok_or_else(|| {
            err(
                line,
                bytes_col,
                format!("byte count `{bytes_text}` is not in 1..=128"),
            )
        })?;
    let policy = match (count == 5).then_some(fields[4]) {
        None => None,
        Some((p, col)) => Some(parse_hex(p).ok_or_else(|| {
            err(
                line,
                col,
                format!("cache policy `{p}` is not a 0x-prefixed hex number"),
            )
        })?),
    };
    let (op, op_col) = fields[1];
    Ok(Some(Fields {
        sm,
        warp,
        op,
        op_col,
        addr,
        bytes,
        policy,
    }))
}

/// The position of the first `#` (a comment) in `text`.
#[inline]
pub(super) fn memchr_hash(text: &str) -> Option<usize> {
    memchr::memchr(b'#', text.as_bytes())
}
