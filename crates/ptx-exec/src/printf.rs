//! Device-side `printf` and `assert`: the two functions nvcc declares without a body
//! (`vprintf`, `__assertfail`) and the CUDA runtime implements.
//!
//! `printf(fmt, ...)` compiles to `vprintf(fmt, buf)`: `fmt` points at the format string (a
//! `.global` byte array) and `buf` at a local buffer holding the arguments one after the
//! other, each aligned to its own size, as C's default promotions leave them: `char`/`short`
//! /`int` as 4 bytes, `long`/`long long`/pointers as 8, `float` promoted to an 8-byte
//! `double`. The conversion's length modifier and letter say which (as on the host, with an LP64
//! `long`). Formatting itself follows C's printf (the `sprintf` crate).

use sprintf::Printf;

/// How one conversion reads its argument from the buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgKind {
    /// `%d`/`%i` (and `%c`, a promoted int): 4 bytes, signed.
    I32,
    /// `%u`/`%o`/`%x`/`%X`: 4 bytes, unsigned.
    U32,
    /// With `l`, `ll`, `j`, `z`, `t`, `q`: 8 bytes, signed.
    I64,
    /// With `l`, `ll`, `j`, `z`, `t`, `q`: 8 bytes, unsigned; also `%p`.
    U64,
    /// `%c`: a promoted int printed as a byte.
    Char,
    /// `%f %F %e %E %g %G %a %A`: an 8-byte double.
    F64,
    /// `%s`: an 8-byte pointer to a NUL-terminated string.
    Str,
}

impl ArgKind {
    fn bytes(self) -> u64 {
        match self {
            ArgKind::I32 | ArgKind::U32 | ArgKind::Char => 4,
            _ => 8,
        }
    }
}

/// Memory access for the formatter: `read(address, len)` reads bytes at a generic address;
/// `string(address)` reads a NUL-terminated string.
pub trait DeviceMemory {
    fn read(&mut self, address: u64, len: usize) -> Result<Vec<u8>, String>;

    /// The NUL-terminated string at `address` (at most `limit` bytes).
    fn string(&mut self, address: u64, limit: usize) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        while out.len() < limit {
            let b = self.read(address + out.len() as u64, 1)?[0];
            if b == 0 {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }
}

/// The longest string `%s` or the format itself reads (a missing NUL stops here).
const STRING_LIMIT: usize = 1 << 16;

/// Formats one `vprintf(format, args)` call.
pub fn vprintf(mem: &mut dyn DeviceMemory, format: u64, args: u64) -> Result<String, String> {
    let fmt = mem.string(format, STRING_LIMIT)?;
    let fmt = String::from_utf8_lossy(&fmt).into_owned();
    let mut offset = 0u64;
    let mut next = |mem: &mut dyn DeviceMemory, kind: ArgKind| -> Result<u64, String> {
        let size = kind.bytes();
        offset = offset.div_ceil(size) * size;
        let bytes = mem.read(args.wrapping_add(offset), size as usize)?;
        offset += size;
        let mut v = [0u8; 8];
        v[..bytes.len()].copy_from_slice(&bytes);
        Ok(u64::from_le_bytes(v))
    };
    // Walk the conversions: the literal format (with `*` widths and precisions replaced by
    // their values) and the typed arguments.
    let mut literal = String::with_capacity(fmt.len());
    let mut values: Vec<Box<dyn Printf>> = Vec::new();
    let mut rest = fmt.as_str();
    while let Some(at) = rest.find('%') {
        literal.push_str(&rest[..at]);
        let spec = &rest[at + 1..];
        let mut chars = spec.char_indices().peekable();
        let mut text = String::from("%");
        // Flags.
        while let Some(&(_, c)) = chars.peek() {
            if matches!(c, '-' | '+' | ' ' | '#' | '0') {
                text.push(c);
                chars.next();
            } else {
                break;
            }
        }
        // Width, then precision: digits or `*` (an int argument).
        for part in 0..2 {
            if part == 1 {
                if chars.peek().map(|&(_, c)| c) != Some('.') {
                    break;
                }
                text.push('.');
                chars.next();
            }
            if chars.peek().map(|&(_, c)| c) == Some('*') {
                chars.next();
                let v = next(mem, ArgKind::I32)? as u32 as i32;
                // A negative width is the `-` flag; a negative precision is no precision.
                match (part, v < 0) {
                    (0, true) => text.push_str(&format!("-{}", v.unsigned_abs())),
                    (1, true) => {
                        text.pop();
                    }
                    _ => text.push_str(&v.to_string()),
                }
            } else {
                while let Some(&(_, c)) = chars.peek() {
                    if c.is_ascii_digit() {
                        text.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
            }
        }
        // Length modifier.
        let mut wide = false;
        for len in ["hh", "h", "ll", "l", "q", "L", "j", "z", "Z", "t"] {
            let pos = chars.peek().map(|&(i, _)| i).unwrap_or(spec.len());
            if spec[pos..].starts_with(len) {
                wide = !len.starts_with('h');
                for _ in 0..len.len() {
                    chars.next();
                }
                break;
            }
        }
        let Some((pos, conv)) = chars.next() else {
            // A lone `%` at the end: printed as is.
            literal.push('%');
            rest = "";
            break;
        };
        let kind = match conv {
            'd' | 'i' if wide => Some(ArgKind::I64),
            'd' | 'i' => Some(ArgKind::I32),
            'u' | 'o' | 'x' | 'X' if wide => Some(ArgKind::U64),
            'u' | 'o' | 'x' | 'X' => Some(ArgKind::U32),
            'p' => Some(ArgKind::U64),
            'c' => Some(ArgKind::Char),
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => Some(ArgKind::F64),
            's' => Some(ArgKind::Str),
            '%' => None,
            other => {
                return Err(format!(
                    "printf format {fmt:?}: unsupported conversion `%{other}`"
                ))
            }
        };
        // `%a` (hexadecimal float) is printed as `%e`: the formatter has no `%a`.
        let conv = match conv {
            'a' => 'e',
            'A' => 'E',
            'p' => {
                text.insert(1, '#');
                'x'
            }
            c => c,
        };
        if let Some(kind) = kind {
            let raw = next(mem, kind)?;
            // C prints a zero under `%#x` as `0`, not `0x0`.
            let is_zero = match kind {
                ArgKind::U32 | ArgKind::I32 => raw as u32 == 0,
                _ => raw == 0,
            };
            if matches!(conv, 'x' | 'X') && is_zero {
                text = text.replacen('#', "", 1);
            }
            text.push(conv);
            literal.push_str(&text);
            let value: Box<dyn Printf> = match kind {
                ArgKind::I32 => Box::new(raw as u32 as i32),
                ArgKind::U32 => Box::new(raw as u32),
                ArgKind::I64 => Box::new(raw as i64),
                ArgKind::U64 => Box::new(raw),
                ArgKind::Char => Box::new(char::from(raw as u8)),
                ArgKind::F64 => Box::new(f64::from_bits(raw)),
                ArgKind::Str => Box::new(if raw == 0 {
                    "(null)".to_string()
                } else {
                    String::from_utf8_lossy(&mem.string(raw, STRING_LIMIT)?).into_owned()
                }),
            };
            values.push(value);
        } else {
            text.push(conv);
            literal.push_str(&text);
        }
        rest = &spec[pos + conv.len_utf8()..];
    }
    literal.push_str(rest);
    let refs: Vec<&dyn Printf> = values.iter().map(|b| b.as_ref()).collect();
    sprintf::vsprintf(&literal, &refs).map_err(|e| format!("printf format {fmt:?}: {e}"))
}

/// The message of a failed device `assert` (`__assertfail(message, file, line, function,
/// charSize)`), worded as the CUDA runtime prints it.
pub fn assert_message(
    mem: &mut dyn DeviceMemory,
    message: u64,
    file: u64,
    line: u32,
    function: u64,
) -> String {
    let mut text = |p: u64| match mem.string(p, STRING_LIMIT) {
        Ok(s) if p != 0 => String::from_utf8_lossy(&s).into_owned(),
        _ => "?".to_string(),
    };
    let (message, file, function) = (text(message), text(file), text(function));
    format!("{file}:{line}: {function}: Assertion `{message}` failed")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat memory: the format at 0x100, the argument buffer at 0x800, strings at 0x400.
    struct Flat(Vec<u8>);

    impl DeviceMemory for Flat {
        fn read(&mut self, address: u64, len: usize) -> Result<Vec<u8>, String> {
            self.0
                .get(address as usize..address as usize + len)
                .map(<[u8]>::to_vec)
                .ok_or_else(|| format!("out of bounds at {address:#x}"))
        }
    }

    fn mem(fmt: &str, args: &[u8]) -> Flat {
        let mut m = vec![0u8; 0x1000];
        m[0x100..0x100 + fmt.len()].copy_from_slice(fmt.as_bytes());
        m[0x400..0x406].copy_from_slice(b"hello\0");
        m[0x800..0x800 + args.len()].copy_from_slice(args);
        Flat(m)
    }

    fn args(parts: &[(u64, u64)]) -> Vec<u8> {
        // (value, size) appended with each value aligned to its size, as nvcc lays them out.
        let mut out = Vec::new();
        for &(v, size) in parts {
            while !(out.len() as u64).is_multiple_of(size) {
                out.push(0xAA);
            }
            out.extend_from_slice(&v.to_le_bytes()[..size as usize]);
        }
        out
    }

    #[test]
    fn conversions_read_their_promoted_sizes_with_alignment() {
        let buf = args(&[
            ((-5i32) as u32 as u64, 4),
            (2.5f64.to_bits(), 8),
            (0xFFFF_FFFF, 4),
            ((-7i64) as u64, 8),
            (b'Z' as u64, 4),
            (0x400, 8),
            (0x1f, 4),
        ]);
        let mut m = mem("d=%d f=%.3f u=%u ld=%ld c=%c s=%s x=%#06x %%\n", &buf);
        assert_eq!(
            vprintf(&mut m, 0x100, 0x800).unwrap(),
            "d=-5 f=2.500 u=4294967295 ld=-7 c=Z s=hello x=0x001f %\n"
        );
    }

    #[test]
    fn star_width_and_general_floats() {
        let buf = args(&[
            (6, 4),
            (42, 4),
            (0.0001234f64.to_bits(), 8),
            (1e20f64.to_bits(), 8),
        ]);
        let mut m = mem("[%*d] %g %e", &buf);
        assert_eq!(
            vprintf(&mut m, 0x100, 0x800).unwrap(),
            "[    42] 0.0001234 1.000000e+20"
        );
    }

    #[test]
    fn null_strings_and_bad_conversions() {
        let mut m = mem("%s|%lld|%#x", &args(&[(0, 8), (u64::MAX, 8), (0, 4)]));
        assert_eq!(vprintf(&mut m, 0x100, 0x800).unwrap(), "(null)|-1|0");
        let mut m = mem("%n", &[]);
        assert!(vprintf(&mut m, 0x100, 0x800).unwrap_err().contains("`%n`"));
    }

    #[test]
    fn assert_messages_name_file_line_and_function() {
        let mut m = mem("x < n", &[]);
        m.0[0x200..0x207].copy_from_slice(b"k.cu\0\0\0");
        m.0[0x300..0x305].copy_from_slice(b"kern\0");
        assert_eq!(
            assert_message(&mut m, 0x100, 0x200, 12, 0x300),
            "k.cu:12: kern: Assertion `x < n` failed"
        );
    }
}
