//! Reading `--leader-log FILE...` for `lbplan history`: each file (or `-`) opened by the input
//! rules of `input_files` (regular files only), inflated if it is gzip (rolled Log4j files are
//! `.log.gz`; told by the magic number, not the name) and streamed through the core's reader in
//! chunks, so a log of any size is read in bounded memory. Errors name the file and the line.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

use lbplan_core::history::leader_log::{LeaderLog, LogReader};

use crate::exit::CliError;
use crate::input_files::{Source, shown};

const CHUNK: usize = 64 * 1024;

/// Reads every file into one log (actions not yet sorted).
pub fn read_leader_logs(paths: &[PathBuf]) -> Result<LeaderLog, CliError> {
    let mut log = LeaderLog::default();
    for path in paths {
        let display = shown(path);
        let raw: Box<dyn Read> = match Source::open(path, &display)? {
            Source::Stdin => Box::new(std::io::stdin().lock()),
            Source::File { file, .. } => Box::new(file),
        };
        let mut buffered = BufReader::with_capacity(CHUNK, raw);
        let gzip = buffered
            .fill_buf()
            .map_err(|e| CliError::BadInput(format!("{display}: {e}")))?
            .starts_with(&[0x1f, 0x8b]);
        let mut input: Box<dyn Read> = if gzip {
            Box::new(flate2::bufread::MultiGzDecoder::new(buffered))
        } else {
            Box::new(buffered)
        };
        let mut reader = LogReader::new(&mut log, &display);
        let mut chunk = vec![0u8; CHUNK];
        loop {
            let n = input.read(&mut chunk).map_err(|e| {
                CliError::BadInput(format!(
                    "{display}: line {}: {}{e}",
                    reader.lines_read() + 1,
                    if gzip {
                        "not a readable gzip file: "
                    } else {
                        ""
                    }
                ))
            })?;
            if n == 0 {
                break;
            }
            reader
                .push(chunk.get(..n).unwrap_or(&[]))
                .map_err(|e| CliError::BadInput(e.to_string()))?;
        }
        reader
            .finish()
            .map_err(|e| CliError::BadInput(e.to_string()))?;
    }
    Ok(log)
}

/// `--clock-tolerance` seconds as milliseconds (0 to a day).
pub fn tolerance_ms(seconds: f64) -> Result<i64, CliError> {
    if !(0.0..=86_400.0).contains(&seconds) {
        return Err(CliError::BadInput(format!(
            "--clock-tolerance {seconds}: give seconds from 0 to 86400"
        )));
    }
    Ok((seconds * 1000.0).round() as i64)
}
