//! What an export is asked for: the script's form and whether it pauses automatic shedding or
//! carries an acknowledged worse verdict.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptFormat {
    PulsarAdmin,
    Curl,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Pause automatic shedding (`loadBalancerSheddingEnabled=false`) while the script runs, so it
    /// does not fight a manual rebalance; the previous value is restored on every exit.
    pub pause_automatic_shedding: bool,
    /// The operator already acknowledged a worse verdict (`lbplan plan --i-know`): the script keeps the
    /// verdict in its header but applies without asking for `--i-know` (see `plan::verdict`).
    pub i_know: bool,
}
