//! Bundle splitting: the four split algorithms, the factory's split arithmetic and the automatic
//! split decisions of both load managers (§5 of the reference).
