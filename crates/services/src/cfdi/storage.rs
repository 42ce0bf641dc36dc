//! Where files (PDFs, acuses, XML stamped before `cfdi_xml` existed, received packages) live:
//! one implementation, [`ObjectStorage`], over `object_store`, so a local folder (the default,
//! `{data_dir}/files`) and an S3-compatible bucket (`TIMBRA_STORAGE_URL=s3://bucket/prefix`)
//! go through the same code. Stamped XML is not here: it is committed with its invoice
//! (`timbra_store::cfdi_xml`), so a stamp never depends on this storage being up.

use std::future::Future;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::local::LocalFileSystem;
use object_store::signer::Signer;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};

/// A boxed future, so the trait can be used as `dyn Storage`.
pub type StorageFuture<'a, T> = Pin<Box<dyn Future<Output = io::Result<T>> + Send + 'a>>;

/// Permanent file storage addressed by relative paths like `cfdi/{empresa}/2026/11/{id}.pdf`.
pub trait Storage: Send + Sync {
    /// Stores `bytes` at `path`; the write is atomic (a reader sees the old file or the new).
    fn put<'a>(&'a self, path: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()>;
    /// Stores the local file `file` at `path` without holding it in memory (a large export):
    /// a folder copies it beside its place and renames it; a bucket takes it as a multipart
    /// upload in [`PARTE`] byte parts.
    fn put_file<'a>(&'a self, path: &'a str, file: &'a Path) -> StorageFuture<'a, ()>;
    /// Reads the file at `path` (`ErrorKind::NotFound` when absent).
    fn get<'a>(&'a self, path: &'a str) -> StorageFuture<'a, Vec<u8>>;
    /// Whether a file is at `path`.
    fn exists<'a>(&'a self, path: &'a str) -> StorageFuture<'a, bool>;
    /// A local filesystem path for `path`, when the backend is a folder.
    fn local_path(&self, path: &str) -> Option<PathBuf>;
    /// A URL the backend itself signs (S3 presigned GET), valid `seconds`; `None` for a folder,
    /// whose files the service serves itself.
    fn presigned_url<'a>(&'a self, path: &'a str, seconds: u64) -> StorageFuture<'a, Option<String>>;
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

/// The part size of a multipart upload ([`Storage::put_file`] to a bucket); S3 takes parts of
/// 5 MiB and more.
pub const PARTE: usize = 8 * 1024 * 1024;

/// The file [`Storage::check`] writes.
const READY_PROBE: &str = "readyz/probe";

/// Where files go, as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageConfig {
    /// A local folder.
    Folder(PathBuf),
    /// An S3-compatible bucket and a key prefix (may be empty), with the standard `AWS_*`
    /// variables for credentials, region and endpoint.
    S3 {
        /// The bucket.
        bucket: String,
        /// Keys are `{prefix}/{path}`.
        prefix: String,
        /// `object_store` settings by name (`aws_access_key_id`, `aws_endpoint_url`, ...).
        settings: Vec<(String, String)>,
    },
}

/// The `AWS_*` variables the S3 client takes, read through the configuration's lookup.
pub const S3_VARIABLES: [&str; 8] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT",
    "AWS_ALLOW_HTTP",
];

impl StorageConfig {
    /// From `TIMBRA_STORAGE_URL`: unset or empty is the folder `{data_dir}/files`; `s3://bucket`
    /// or `s3://bucket/prefix` a bucket; anything else an error naming the variable.
    pub fn parse(url: Option<&str>, data_dir: &Path, settings: &[(String, String)]) -> Result<Self, String> {
        let Some(url) = url.map(str::trim).filter(|url| !url.is_empty()) else {
            return Ok(Self::Folder(data_dir.join("files")));
        };
        let rest = url.strip_prefix("s3://").ok_or_else(|| {
            format!("TIMBRA_STORAGE_URL must be s3://bucket[/prefix] (or unset for {data_dir:?}/files)")
        })?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err("TIMBRA_STORAGE_URL names no bucket: s3://bucket[/prefix]".into());
        }
        Ok(Self::S3 {
            bucket: bucket.to_owned(),
            prefix: prefix.trim_matches('/').to_owned(),
            settings: settings.to_vec(),
        })
    }
}

/// Files in an `object_store` backend (see the module documentation).
#[derive(Debug)]
pub struct ObjectStorage {
    store: Arc<dyn ObjectStore>,
    /// The bucket, which signs its own download URLs; `None` for a folder.
    signer: Option<Arc<AmazonS3>>,
    /// The folder, for [`Storage::local_path`].
    root: Option<PathBuf>,
    prefix: String,
}

impl ObjectStorage {
    /// Opens the configured backend (no network call: a bucket is first reached on use).
    pub fn open(config: &StorageConfig) -> io::Result<Self> {
        match config {
            StorageConfig::Folder(root) => Self::folder(root.clone()),
            StorageConfig::S3 { bucket, prefix, settings } => {
                // A few quick retries: a request (or `/readyz`) waiting on a bucket that is down
                // answers within seconds, not after object_store's default three minutes.
                let retry = object_store::RetryConfig {
                    max_retries: 3,
                    retry_timeout: Duration::from_secs(5),
                    ..object_store::RetryConfig::default()
                };
                let mut builder = AmazonS3Builder::new().with_bucket_name(bucket).with_retry(retry);
                for (name, value) in settings {
                    let key = name.parse().map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
                    builder = builder.with_config(key, value);
                }
                Ok(Self::s3(builder.build().map_err(io::Error::other)?, prefix))
            }
        }
    }

    /// Files in the folder `root` (created, mode 0700, if missing).
    pub fn folder(root: PathBuf) -> io::Result<Self> {
        crate::private_fs::create_dir(&root)?;
        let store = LocalFileSystem::new_with_prefix(&root).map_err(io::Error::other)?.with_automatic_cleanup(true);
        Ok(Self { store: Arc::new(store), signer: None, root: Some(root), prefix: String::new() })
    }

    /// Files in a bucket, under `prefix`.
    pub fn s3(s3: AmazonS3, prefix: &str) -> Self {
        let s3 = Arc::new(s3);
        Self { store: s3.clone(), signer: Some(s3), root: None, prefix: prefix.trim_matches('/').to_owned() }
    }

    /// The object key of a storage path; paths that climb out (`..`, absolute, empty parts)
    /// are refused.
    fn key(&self, path: &str) -> io::Result<object_store::path::Path> {
        let relative = Path::new(path);
        if path.is_empty() || !relative.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "invalid storage path"));
        }
        let full = if self.prefix.is_empty() { path.to_owned() } else { format!("{}/{path}", self.prefix) };
        object_store::path::Path::parse(full).map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))
    }
}

/// `object_store`'s errors as `io::Error`, keeping "not found" recognisable.
fn io_error(error: object_store::Error) -> io::Error {
    match error {
        object_store::Error::NotFound { .. } => io::Error::new(io::ErrorKind::NotFound, error),
        other => io::Error::other(other),
    }
}

impl Storage for ObjectStorage {
    fn put<'a>(&'a self, path: &'a str, bytes: Vec<u8>) -> StorageFuture<'a, ()> {
        Box::pin(async move {
            let key = self.key(path)?;
            // A folder: written by hand, because object_store creates files with the process's
            // umask (0644) and the guide promises stored documents 0600 (issue 28, finding 9).
            if let Some(file) = self.local_path(path) {
                return tokio::task::spawn_blocking(move || crate::private_fs::write_atomic(&file, &bytes))
                    .await
                    .map_err(io::Error::other)?;
            }
            self.store.put(&key, PutPayload::from(bytes)).await.map_err(io_error)?;
            Ok(())
        })
    }

    fn put_file<'a>(&'a self, path: &'a str, file: &'a Path) -> StorageFuture<'a, ()> {
        Box::pin(async move {
            let key = self.key(path)?;
            if let Some(destino) = self.local_path(path) {
                let origen = file.to_owned();
                return tokio::task::spawn_blocking(move || crate::private_fs::copy_atomic(&origen, &destino))
                    .await
                    .map_err(io::Error::other)?;
            }
            let upload = self.store.put_multipart(&key).await.map_err(io_error)?;
            let mut escritura = object_store::WriteMultipart::new_with_chunk_size(upload, PARTE);
            let mut origen = tokio::fs::File::open(file).await?;
            let mut parte = vec![0u8; 256 * 1024];
            loop {
                let leidos = tokio::io::AsyncReadExt::read(&mut origen, &mut parte).await?;
                if leidos == 0 {
                    break;
                }
                // At most two parts in flight: memory stays a few parts whatever the file's size.
                escritura.wait_for_capacity(2).await.map_err(io_error)?;
                escritura.write(&parte[..leidos]);
            }
            escritura.finish().await.map_err(io_error)?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, path: &'a str) -> StorageFuture<'a, Vec<u8>> {
        Box::pin(async move {
            let key = self.key(path)?;
            let found = self.store.get(&key).await.map_err(io_error)?;
            Ok(found.bytes().await.map_err(io_error)?.to_vec())
        })
    }

    fn exists<'a>(&'a self, path: &'a str) -> StorageFuture<'a, bool> {
        Box::pin(async move {
            let key = self.key(path)?;
            match self.store.head(&key).await {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(error) => Err(io::Error::other(error)),
            }
        })
    }

    fn local_path(&self, path: &str) -> Option<PathBuf> {
        let root = self.root.as_ref()?;
        let relative = Path::new(path);
        (!path.is_empty() && relative.components().all(|c| matches!(c, Component::Normal(_))))
            .then(|| root.join(relative))
    }

    fn presigned_url<'a>(&'a self, path: &'a str, seconds: u64) -> StorageFuture<'a, Option<String>> {
        Box::pin(async move {
            let Some(signer) = &self.signer else { return Ok(None) };
            let key = self.key(path)?;
            let url = signer
                .signed_url(object_store::signer::Method::GET, &key, Duration::from_secs(seconds))
                .await
                .map_err(io::Error::other)?;
            Ok(Some(url.to_string()))
        })
    }
}

/// A storage that could not be opened: every call fails with the reason (and `/readyz` says
/// so). `timbra serve` refuses to start with it; it exists so building the state never panics.
#[derive(Debug)]
pub struct Unavailable(pub String);

impl Unavailable {
    fn error(&self) -> io::Error {
        io::Error::other(format!("file storage unavailable: {}", self.0))
    }
}

impl Storage for Unavailable {
    fn put<'a>(&'a self, _path: &'a str, _bytes: Vec<u8>) -> StorageFuture<'a, ()> {
        Box::pin(async move { Err(self.error()) })
    }

    fn put_file<'a>(&'a self, _path: &'a str, _file: &'a Path) -> StorageFuture<'a, ()> {
        Box::pin(async move { Err(self.error()) })
    }

    fn get<'a>(&'a self, _path: &'a str) -> StorageFuture<'a, Vec<u8>> {
        Box::pin(async move { Err(self.error()) })
    }

    fn exists<'a>(&'a self, _path: &'a str) -> StorageFuture<'a, bool> {
        Box::pin(async move { Err(self.error()) })
    }

    fn local_path(&self, _path: &str) -> Option<PathBuf> {
        None
    }

    fn presigned_url<'a>(&'a self, _path: &'a str, _seconds: u64) -> StorageFuture<'a, Option<String>> {
        Box::pin(async move { Err(self.error()) })
    }
}

/// Opens the configured storage, or an [`Unavailable`] one that reports why.
pub fn open_or_unavailable(config: &StorageConfig) -> Arc<dyn Storage> {
    match ObjectStorage::open(config) {
        Ok(storage) => Arc::new(storage),
        Err(error) => {
            tracing::error!(error.message = %error, "the file storage could not be opened");
            Arc::new(Unavailable(error.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_round_trip_and_paths_stay_inside() {
        let root = std::env::temp_dir().join(format!("timbra-st-{}", uuid::Uuid::new_v4()));
        let storage = ObjectStorage::folder(root.clone()).unwrap();
        storage.put("cfdi/a/1.xml", b"<x/>".to_vec()).await.unwrap();
        assert_eq!(storage.get("cfdi/a/1.xml").await.unwrap(), b"<x/>");
        assert!(storage.exists("cfdi/a/1.xml").await.unwrap());
        assert!(!storage.exists("cfdi/a/2.xml").await.unwrap());
        assert_eq!(storage.get("cfdi/a/2.xml").await.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert!(storage.get("../etc/passwd").await.is_err());
        assert!(storage.get("/etc/passwd").await.is_err());
        assert_eq!(storage.local_path("cfdi/a/1.xml"), Some(root.join("cfdi/a/1.xml")));
        assert_eq!(std::fs::read(root.join("cfdi/a/1.xml")).unwrap(), b"<x/>");
        assert_eq!(storage.presigned_url("cfdi/a/1.xml", 60).await.unwrap(), None);
        let grande = root.join("grande.tmp");
        std::fs::write(&grande, vec![7u8; 300_000]).unwrap();
        storage.put_file("zip/a/1.zip", &grande).await.unwrap();
        assert_eq!(storage.get("zip/a/1.zip").await.unwrap(), vec![7u8; 300_000]);
        let _ = std::fs::remove_dir_all(root);
    }

    #[test]
    fn the_storage_url_names_a_bucket_and_prefix_or_nothing() {
        let data = Path::new("/srv/timbra");
        let none: &[(String, String)] = &[];
        assert_eq!(StorageConfig::parse(None, data, none), Ok(StorageConfig::Folder(data.join("files"))));
        assert_eq!(StorageConfig::parse(Some(" "), data, none), Ok(StorageConfig::Folder(data.join("files"))));
        let region = vec![("aws_region".to_owned(), "mx-central-1".to_owned())];
        assert_eq!(
            StorageConfig::parse(Some("s3://facturas/prod/"), data, &region),
            Ok(StorageConfig::S3 { bucket: "facturas".into(), prefix: "prod".into(), settings: region.clone() })
        );
        assert_eq!(
            StorageConfig::parse(Some("s3://facturas"), data, none),
            Ok(StorageConfig::S3 { bucket: "facturas".into(), prefix: String::new(), settings: vec![] })
        );
        assert!(StorageConfig::parse(Some("gs://x"), data, none).unwrap_err().contains("TIMBRA_STORAGE_URL"));
        assert!(StorageConfig::parse(Some("s3:///x"), data, none).is_err());
        let bad = vec![("aws_no_such_setting".to_owned(), "1".to_owned())];
        let config = StorageConfig::parse(Some("s3://facturas"), data, &bad).unwrap();
        assert!(ObjectStorage::open(&config).is_err(), "an unknown setting stops the start");
    }
}
