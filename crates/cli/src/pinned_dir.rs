//! A directory opened once and written through its handle (`openat`, `renameat`, `linkat`): a
//! directory or symlink swapped in at its path during a long run (`collect --every`) cannot
//! redirect later files, and no name inside it is followed if it is a link. Also the one `syncfs`
//! a batch of writes needs instead of an `fsync` per file (`simulate --record-series`).

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// An open directory; `shown` is how messages name it.
pub struct PinnedDir {
    fd: OwnedFd,
    shown: PathBuf,
}

fn c_name(name: &str) -> io::Result<CString> {
    // One plain name inside the directory: no separator, no `..`, no NUL.
    if name.is_empty() || name == "." || name == ".." || name.contains('/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("`{name}` is not a plain file name"),
        ));
    }
    CString::new(name).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a name"))
}

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl PinnedDir {
    /// Opens the directory at `path`, refusing a symlink there (`O_NOFOLLOW`).
    pub fn open(path: &Path) -> io::Result<Self> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        Ok(Self {
            fd: OwnedFd::from(file),
            shown: path.to_path_buf(),
        })
    }

    /// Whether `path` names this directory (same device and inode; a symlink there does not).
    pub fn is_at(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Ok(here) = File::from(match self.fd.try_clone() {
            Ok(fd) => fd,
            Err(_) => return false,
        })
        .metadata() else {
            return false;
        };
        std::fs::symlink_metadata(path)
            .is_ok_and(|m| m.is_dir() && m.dev() == here.dev() && m.ino() == here.ino())
    }

    /// How messages name `name` inside this directory.
    pub fn shown(&self, name: &str) -> String {
        self.shown.join(name).display().to_string()
    }

    /// The subdirectory `name`, created when missing; a symlink there is refused.
    pub fn subdir(&self, name: &str) -> io::Result<Self> {
        let c = c_name(name)?;
        // SAFETY: a valid directory fd and a NUL-terminated name.
        let made = unsafe { libc::mkdirat(self.fd.as_raw_fd(), c.as_ptr(), 0o777) };
        if made < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::AlreadyExists {
                return Err(e);
            }
        }
        // SAFETY: as above; the fd returned is owned below.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Self {
            // SAFETY: `fd` was just opened and is owned by nothing else.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
            shown: self.shown.join(name),
        })
    }

    fn open_at(&self, name: &str, flags: libc::c_int) -> io::Result<File> {
        let c = c_name(name)?;
        // SAFETY: a valid directory fd and a NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                c.as_ptr(),
                flags | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                0o666 as libc::c_uint,
            )
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Creates `name` as a new file (never an existing one, never through a link).
    pub fn create_new(&self, name: &str) -> io::Result<File> {
        self.open_at(name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL)
    }

    /// Opens `name` for reading if it is a regular file (a link, a FIFO or a device is refused
    /// without blocking).
    pub fn open_file(&self, name: &str) -> io::Result<(File, u64)> {
        let file = self.open_at(name, libc::O_RDONLY | libc::O_NONBLOCK)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a regular file",
            ));
        }
        Ok((file, meta.len()))
    }

    /// Renames `from` to `to`, both in this directory (replacing `to`).
    pub fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let (f, t) = (c_name(from)?, c_name(to)?);
        let fd = self.fd.as_raw_fd();
        // SAFETY: valid fds and NUL-terminated names.
        check(unsafe { libc::renameat(fd, f.as_ptr(), fd, t.as_ptr()) })
    }

    /// Gives `from` the name `to` too, failing with `AlreadyExists` if `to` exists (atomically).
    pub fn link_new(&self, from: &str, to: &str) -> io::Result<()> {
        let (f, t) = (c_name(from)?, c_name(to)?);
        let fd = self.fd.as_raw_fd();
        // SAFETY: valid fds and NUL-terminated names; flags 0 never follows a link at `from`.
        check(unsafe { libc::linkat(fd, f.as_ptr(), fd, t.as_ptr(), 0) })
    }

    pub fn remove(&self, name: &str) -> io::Result<()> {
        let c = c_name(name)?;
        // SAFETY: a valid directory fd and a NUL-terminated name.
        check(unsafe { libc::unlinkat(self.fd.as_raw_fd(), c.as_ptr(), 0) })
    }

    /// The names in this directory (regular files and others; `.` and `..` left out), at most
    /// `max` of them (more is an error: the listing is not built past it).
    pub fn names(&self, max: usize) -> io::Result<Vec<String>> {
        // SAFETY: `dup` of a valid fd; `fdopendir` takes ownership of the copy, `closedir` frees it.
        let copy = unsafe { libc::dup(self.fd.as_raw_fd()) };
        if copy < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `copy` is a directory fd we own.
        let dir = unsafe { libc::fdopendir(copy) };
        if dir.is_null() {
            let e = io::Error::last_os_error();
            // SAFETY: `copy` is still ours when fdopendir failed.
            unsafe { libc::close(copy) };
            return Err(e);
        }
        // SAFETY: `dir` is a valid stream until `closedir`.
        unsafe { libc::rewinddir(dir) };
        let mut out = Vec::new();
        let result = loop {
            // SAFETY: `dir` is valid; the entry is read before the next readdir call.
            let entry = unsafe { libc::readdir(dir) };
            if entry.is_null() {
                break Ok(());
            }
            // SAFETY: `d_name` is NUL-terminated within the entry.
            let name = unsafe { std::ffi::CStr::from_ptr((*entry).d_name.as_ptr()) };
            let name = name.to_string_lossy();
            if name == "." || name == ".." {
                continue;
            }
            if out.len() >= max {
                break Err(io::Error::other(format!("more than {max} entries")));
            }
            out.push(name.into_owned());
        };
        // SAFETY: `dir` came from fdopendir and is closed once.
        unsafe { libc::closedir(dir) };
        result.map(|()| out)
    }

    /// Flushes this directory (the names created, renamed and removed in it) to disk.
    pub fn sync(&self) -> io::Result<()> {
        // SAFETY: a valid fd.
        check(unsafe { libc::fsync(self.fd.as_raw_fd()) })
    }

    /// Flushes everything written on this directory's file system: one call for a batch of files
    /// (their data, names and renames) instead of an `fsync` each.
    pub fn sync_all_files(&self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: a valid fd.
            check(unsafe { libc::syncfs(self.fd.as_raw_fd()) })
        }
        #[cfg(not(target_os = "linux"))]
        {
            // SAFETY: no arguments; flushes every file system.
            unsafe { libc::sync() };
            Ok(())
        }
    }
}
