//! The worker binary trunk builds (`data-type="worker"` in index.html): answers the dashboard's
//! messages (see `lbplan_worker::protocol`).

fn main() {
    lbplan_worker::start();
}
