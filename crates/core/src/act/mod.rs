//! Acting on a plan: its exports (`pulsar-admin` script, admin REST calls, curl), the safety policy
//! they carry, and the guarded apply (checks, journal, session). Reads the plan document and naming only.

pub mod apply;
pub mod export;
pub mod export_format;
pub mod names;
pub mod safety;
