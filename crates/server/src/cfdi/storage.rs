//! Where XML (and later PDF) files live: a [`Storage`] interface with a local-folder
//! implementation under the data dir. An S3 implementation will answer
//! [`Storage::presigned_url`]; the local folder answers `None` and the service signs its own
//! links (see [`super::links`]).

use std::future::Future;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;

/// A boxed future, so the trait can be used as `dyn Storage`.
pub type StorageFuture<'a, T> = Pin<Box<dyn Future<Output = io::Result<T>> + Send + 'a>>;

/// Permanent file storage addressed by relative paths like `cfdi/{empresa}/2026/11/{id}.xml`.
pub trait Storage: Send + Sync {
    /// Stores `bytes` at `path`, replacing nothing silently: the write is atomic (temp + rename).
    fn put<'a>(&'a self, path: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()>;
    /// Reads the file at `path` (`ErrorKind::NotFound` when absent).
    fn get<'a>(&'a self, path: &'a str) -> StorageFuture<'a, Vec<u8>>;
    /// A local filesystem path for `path`, when the backend is a folder.
    fn local_path(&self, path: &str) -> Option<PathBuf>;
    /// A URL the backend itself signs (S3 presigned), valid `seconds`; `None` for the folder.
    fn presigned_url(&self, path: &str, seconds: u64) -> Option<String>;
    /// Writes and reads back a small probe file (`/readyz`): the backend takes and gives files.
    fn check(&self) -> StorageFuture<'_, ()> {
        Box::pin(async move {
            let probe = uuid::Uuid::new_v4().to_string().into_bytes();
            self.put(READY_PROBE, probe.clone()).await?;
            // A concurrent probe may have replaced it: any probe read back whole will do.
            if self.get(READY_PROBE).await?.len() == probe.len() {
                Ok(())
            } else {
                Err(io::Error::other("the probe file read back differs from the one written"))
            }
        })
    }
}

/// The file [`Storage::check`] writes.
const READY_PROBE: &str = "readyz/probe";

/// Files in a folder (default: `{data_dir}/files`).
#[derive(Clone, Debug)]
pub struct LocalStorage {
    root: PathBuf,
}

impl LocalStorage {
    /// Storage rooted at `root` (created on first write).
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }

    /// The file for a storage path; paths that climb out of the root are refused.
    fn resolve(&self, path: &str) -> io::Result<PathBuf> {
        let relative = Path::new(path);
        if path.is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "invalid storage path"));
        }
        Ok(self.root.join(relative))
    }
}

impl Storage for LocalStorage {
    fn put<'a>(&'a self, path: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()> {
        Box::pin(async move {
            let target = self.resolve(path)?;
            // One trip to the blocking pool for the three calls: stamping writes its XML while
            // it holds the writers' turn.
            tokio::task::spawn_blocking(move || {
                if let Some(parent) = target.parent() {
                    crate::private_fs::create_dir(parent)?;
                }
                let temp = target.with_extension(format!("tmp-{}", uuid::Uuid::new_v4().simple()));
                crate::private_fs::write_new(&temp, &bytes)?;
                std::fs::rename(&temp, &target)
            })
            .await
            .map_err(io::Error::other)?
        })
    }

    fn get<'a>(&'a self, path: &'a str) -> StorageFuture<'a, Vec<u8>> {
        Box::pin(async move { tokio::fs::read(self.resolve(path)?).await })
    }

    fn local_path(&self, path: &str) -> Option<PathBuf> {
        self.resolve(path).ok()
    }

    fn presigned_url(&self, _path: &str, _seconds: u64) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_round_trip_and_paths_stay_inside() {
        let root = std::env::temp_dir().join(format!("timbra-st-{}", uuid::Uuid::new_v4()));
        let storage = LocalStorage::new(root.clone());
        storage.put("cfdi/a/1.xml", b"<x/>".to_vec()).await.unwrap();
        assert_eq!(storage.get("cfdi/a/1.xml").await.unwrap(), b"<x/>");
        assert_eq!(storage.get("cfdi/a/2.xml").await.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(storage.get("../etc/passwd").await.is_err());
        assert!(storage.get("/etc/passwd").await.is_err());
        let _ = std::fs::remove_dir_all(root);
    }
}
