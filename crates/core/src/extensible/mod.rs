//! The extensible load manager (`ExtensibleLoadManagerImpl`): load statistics, TransferShedder, its
//! placement and top-K bundle reports (§9 of the reference).
