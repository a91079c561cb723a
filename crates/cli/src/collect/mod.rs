//! `lbplan collect` internals: credentials ([`auth`]), the retrying HTTP client ([`http`]) with
//! where requests and the credential may go ([`origins`]) and how much an answer may hold
//! ([`limits`]), the admin endpoints, the checks of the names servers hand back ([`names`]) and how
//! answers map onto the importer's metadata-store layout ([`endpoints`], [`layout`],
//! [`broker_conf`]), the concurrent gathering ([`pool`], [`gather`]), progress on stderr
//! ([`progress`]), the missing-data report ([`report`]) and the output writers ([`writer`]).

pub mod auth;
pub mod broker_conf;
pub mod endpoints;
pub mod gather;
pub mod http;
pub mod layout;
pub mod limits;
pub mod names;
pub mod origins;
pub mod pool;
pub mod progress;
pub mod report;
pub mod writer;
