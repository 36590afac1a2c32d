//! The user's output files (buffers from `--out`, reports, `fmt -o`, hazard JSON, sweep
//! results) are written to a temporary file in the target's directory and renamed over the
//! target once complete. A run that fails or is interrupted while writing never leaves a
//! half-written file, and never destroys the file that was there (`ptxsim fmt -o k.ptx k.ptx`
//! rewrites its own input). A file that already exists keeps its permissions; a new one gets
//! the usual ones (0666 less the umask), not the 0600 of a temporary file.

use std::io;
use std::path::Path;

/// Writes `bytes` to `path` atomically (see the module docs).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |tmp| std::fs::write(tmp, bytes))
}

/// Lets `fill` write a temporary file (given by path) beside `path`, then renames it to
/// `path`. If `fill` fails, the temporary file is removed and `path` is untouched.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let tmp = pending(path)?;
    fill(tmp.path())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The temporary file that will become `path` (by `persist(path)`), created now so that an
/// unwritable destination fails before a long run rather than after it. Dropped without
/// `persist`, it is removed.
pub fn pending(path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ptxsim-").suffix(".tmp");
    let existing = std::fs::metadata(path).ok().map(|m| m.permissions());
    if let Some(p) = &existing {
        builder.permissions(p.clone());
    } else {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Created with open(2)'s mode, which the umask then reduces, as for any new file.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
    }
    builder.tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".ptxsim-"))
            .collect()
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        std::fs::write(&path, b"previous").unwrap();
        let err = write_atomic_with(&path, |tmp| {
            std::fs::write(tmp, b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"previous");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn replaces_the_file_and_keeps_its_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.ptx");
        std::fs::write(&path, b"old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640);
        }
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn a_new_file_is_not_private_to_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.json");
        write_atomic(&path, b"{}").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            // 0666 less any umask: readable by the owner's group unless the umask forbids it;
            // never the 0600 of a bare temporary file unless the umask is 077.
            assert_eq!(mode & 0o600, 0o600);
            assert_eq!(mode, 0o666 & !current_umask());
        }
    }

    #[cfg(unix)]
    fn current_umask() -> u32 {
        // What a plain new file gets tells the umask without calling umask(2).
        let dir = tempfile::tempdir().unwrap();
        let probe = dir.path().join("probe");
        std::fs::write(&probe, b"").unwrap();
        use std::os::unix::fs::PermissionsExt;
        0o666 & !(std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777)
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/out.npy");
        assert!(write_atomic(&path, b"x").is_err());
    }
}
