//! Range queries to a Prometheus HTTP API: one GET of `/api/v1/query_range` per metric and window
//! through collect's client (deadline, retries of transient failures, no redirect to another
//! origin, the credential only to the Prometheus URL's origin, answers read within a byte cap),
//! each answer read by core's bounded reader; every error names the query.

use std::time::Duration;

use lbplan_core::history::prometheus::{PromSeries, RangeLimits, names, parse_error, parse_matrix};
use url::Url;

use crate::collect::auth::Credential;
use crate::collect::http::{Client, HttpOptions};
use crate::collect::limits::Limits;
use crate::exit::CliError;

use super::time_arg::api_seconds;

/// A Prometheus to query.
pub struct Prometheus {
    client: Client,
    /// `…/api/v1/query_range` under the given URL's path.
    endpoint: Url,
    limits: RangeLimits,
}

impl Prometheus {
    pub fn new(
        base: &str,
        credential: Option<Credential>,
        timeout: Duration,
        max_answer_bytes: u64,
        limits: RangeLimits,
    ) -> Result<Self, CliError> {
        let url = crate::collect::origins::parse_http_url(base)
            .map_err(|e| CliError::BadInput(format!("--prometheus `{base}`: {e}")))?;
        let mut endpoint = url.clone();
        let path = format!("{}/api/v1/query_range", url.path().trim_end_matches('/'));
        endpoint.set_path(&path);
        endpoint.set_query(None);
        endpoint.set_fragment(None);
        let client = Client::new(
            HttpOptions {
                timeout,
                attempts: 3,
                backoff: Duration::from_millis(500),
            },
            credential,
            None,
            &url,
            Limits {
                answer_bytes: max_answer_bytes,
                // Core's reader counts series and points; the element count is its business.
                answer_elements: u64::MAX,
                total_bytes: u64::MAX,
                total_elements: u64::MAX,
            },
        );
        Ok(Self {
            client,
            endpoint,
            limits,
        })
    }

    /// The series of `metric` at each step of `[start_ms, end_ms]`, fresh samples only.
    pub fn range(
        &self,
        metric: &str,
        start_ms: i64,
        end_ms: i64,
        step_ms: i64,
    ) -> Result<Vec<PromSeries>, CliError> {
        let step_s = (step_ms / 1000).max(1);
        let query = names::fresh_query(metric, step_s);
        let mut url = self.endpoint.clone();
        url.query_pairs_mut()
            .append_pair("query", &query)
            .append_pair("start", &api_seconds(start_ms))
            .append_pair("end", &api_seconds(end_ms))
            .append_pair("step", &format!("{step_s}s"));
        let named = |why: String| {
            CliError::Failed(format!(
                "Prometheus query `{query}` ({} to {}): {why}",
                api_seconds(start_ms),
                api_seconds(end_ms)
            ))
        };
        // An error answer's `error` member is in the failure's message (collect's client).
        let fetched = self
            .client
            .get(url.as_str(), &|_, _, _| {})
            .map_err(|f| named(f.message))?;
        if let Some(e) = parse_error(&fetched.body) {
            return Err(named(e.to_string()));
        }
        let (series, warnings) =
            parse_matrix(&fetched.body, self.limits).map_err(|e| named(e.to_string()))?;
        for w in warnings {
            crate::output::message("warning: ", &format!("Prometheus query `{query}`: {w}"));
        }
        Ok(series)
    }
}
