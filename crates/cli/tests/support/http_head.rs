//! What the fake admin servers of the collect tests share: reading one HTTP request's head.

use std::io::Read;

/// The request path and `Authorization` header of one request, or `None` when the client closed
/// the connection before a full head (at most 64 KiB) arrived.
#[allow(dead_code)] // the apply tests read the method too
pub fn read_request_head(s: &mut impl Read) -> Option<(String, Option<String>)> {
    read_request(s).map(|(_, path, authorization)| (path, authorization))
}

/// The method, path and `Authorization` header of one request (the apply tests' fake records the
/// method: a dry run must send no PUT, POST or DELETE).
pub fn read_request(s: &mut impl Read) -> Option<(String, String, Option<String>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < 65536 {
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let head = String::from_utf8_lossy(&buf).to_string();
    let mut lines = head.split("\r\n");
    let first = lines.next().unwrap_or("");
    let method = first.split(' ').next().unwrap_or("").to_string();
    let path = first.split(' ').nth(1).unwrap_or("").to_string();
    let authorization = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("authorization"))
        .map(|(_, v)| v.trim().to_string());
    Some((method, path, authorization))
}
