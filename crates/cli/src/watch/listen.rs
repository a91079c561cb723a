//! `--metrics-listen`: the address the endpoint binds. Loopback by default; any other address
//! exposes the cluster's broker names and load to the network, so it needs
//! `--metrics-allow-remote` and is warned about.

use std::net::SocketAddr;

use crate::exit::CliError;

/// The default endpoint (9464: the port OpenTelemetry's Prometheus exporter made usual).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9464";

/// The address to bind and, for a non-loopback one allowed, the warning to print.
pub fn check(text: &str, allow_remote: bool) -> Result<(SocketAddr, Option<String>), CliError> {
    let addr: SocketAddr = text.trim().parse().map_err(|_| {
        CliError::BadInput(format!(
            "--metrics-listen `{text}`: expected IP:PORT, e.g. {DEFAULT_LISTEN} or [::1]:9464"
        ))
    })?;
    if addr.ip().is_loopback() {
        return Ok((addr, None));
    }
    if !allow_remote {
        return Err(CliError::BadInput(format!(
            "--metrics-listen {addr}: not a loopback address; the metrics name the cluster's \
             brokers and their load, so serving them beyond this machine needs \
             --metrics-allow-remote (or keep {DEFAULT_LISTEN} behind your own proxy)"
        )));
    }
    Ok((
        addr,
        Some(format!(
            "serving metrics on {addr}, beyond loopback (--metrics-allow-remote): anyone who \
             can reach it sees the broker names and load; the endpoint has no authentication"
        )),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_is_the_rule_and_remote_needs_the_flag() {
        assert!(check("127.0.0.1:9464", false).unwrap().1.is_none());
        assert!(check("[::1]:9464", false).unwrap().1.is_none());
        let refused = check("0.0.0.0:9464", false).unwrap_err().to_string();
        assert!(refused.contains("--metrics-allow-remote"), "{refused}");
        let (addr, warning) = check("0.0.0.0:9464", true).unwrap();
        assert_eq!(addr.port(), 9464);
        assert!(warning.unwrap().contains("no authentication"));
        assert!(check("localhost:9464", false).is_err());
    }
}
