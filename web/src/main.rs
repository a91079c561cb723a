//! The binary trunk builds (`data-bin="lbplan-web"` in index.html): mounts the standalone page when
//! the page has `#app[data-lbplan-standalone]`; `mount_planner` is exported for embedding.

fn main() {
    lbplan_web::start();
}
