//! Why a leader cannot be set up or reconfigured: a `broker.conf` setting that does not read, or a
//! strategy that cannot be built. A plan's errors (`plan::PlanError`) wrap it.

use crate::config::ConfigError;
use crate::modular::leader::StrategyConfigError;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LeaderError {
    #[error("setting {0}")]
    Setting(#[from] ConfigError),
    #[error(transparent)]
    Strategy(#[from] StrategyConfigError),
}
