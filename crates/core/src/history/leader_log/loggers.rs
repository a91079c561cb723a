//! The load manager's loggers (simple class names) whose lines `messages::recognize` reads; the
//! line splitter reads the context map of these only.

/// The loggers whose lines `messages::recognize` reads (simple class names).
const KNOWN_LOGGERS: &[&str] = &[
    "ModularLoadManagerImpl",
    "UnloadScheduler",
    "SplitManager",
    "ThresholdShedder",
    "OverloadShedder",
    "AvgShedder",
    "UniformLoadShedder",
    "TransferShedder",
    "BundleSplitterTask",
    "DefaultNamespaceBundleSplitStrategyImpl",
    "PulsarService",
    "ExtensibleLoadManagerImpl",
];

/// Whether `messages::recognize` reads this logger's lines.
pub fn is_known_logger(simple_name: &str) -> bool {
    KNOWN_LOGGERS.contains(&simple_name)
}
