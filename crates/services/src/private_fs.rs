//! Files only the service's user can read: the data folder and its subfolders are created
//! 0700, the SQLite database (with its WAL and shared-memory files) and stored documents 0600.
//! The database holds password hashes and sealed keys, the documents taxpayers' data.

use std::io;
use std::path::Path;

/// Creates `dir` and its missing parents with mode 0700 (folders that exist keep theirs).
pub fn create_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Creates (or truncates) the file `path` with mode 0600, open for writing.
pub fn create_new(path: &Path) -> io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Writes `bytes` to a new file `path` created with mode 0600.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// Replaces `path` with `bytes` atomically (a reader sees the old file or the new one), the new
/// file created with mode 0600 and missing folders 0700: a stored document (a PDF, an acuse, a
/// received package) is never readable by other users, not even while it is written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let parent = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir(parent)?;
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!(".{}.tmp", uuid::Uuid::new_v4().simple()));
    let temporary = parent.join(name);
    let written = write_new(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Replaces `path` with a copy of the file `from` atomically, like [`write_atomic`] (0600, missing
/// folders 0700), streaming: the file is never held in memory.
pub fn copy_atomic(from: &Path, path: &Path) -> io::Result<()> {
    let parent = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    create_dir(parent)?;
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!(".{}.tmp", uuid::Uuid::new_v4().simple()));
    let temporary = parent.join(name);
    let written = (|| {
        let mut destino = create_new(&temporary)?;
        io::copy(&mut std::fs::File::open(from)?, &mut destino)?;
        destino.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// Makes sure the SQLite database at `db_path` exists with mode 0600 before SQLite opens it:
/// SQLite creates its `-wal` and `-shm` files with the database's mode. Files of an older
/// installation (created 0644) are narrowed to 0600.
pub fn prepare_sqlite_file(db_path: &Path) -> io::Result<()> {
    if let Some(parent) = db_path.parent().filter(|parent| !parent.as_os_str().is_empty()) {
        create_dir(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(db_path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = db_path.as_os_str().to_owned();
            name.push(suffix);
            let path = std::path::PathBuf::from(name);
            if let Ok(metadata) = std::fs::metadata(&path)
                && metadata.permissions().mode() & 0o077 != 0
            {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
            }
        }
    }
    Ok(())
}

/// The file path of a `sqlite:` URL (`sqlite://path`, `sqlite:path`, with any `?options`
/// dropped); `None` for in-memory databases.
pub fn sqlite_path(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && path != ":memory:").then(|| std::path::PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_urls_name_their_file() {
        assert_eq!(sqlite_path("sqlite://./data/timbra.db"), Some("./data/timbra.db".into()));
        assert_eq!(sqlite_path("sqlite:/tmp/x.db?mode=rwc"), Some("/tmp/x.db".into()));
        assert_eq!(sqlite_path("sqlite::memory:"), None);
        assert_eq!(sqlite_path("postgres://x"), None);
    }
}
