//! The binary trunk builds (`data-bin="lbplan-web"` in index.html).

fn main() {
    lbplan_web::start();
}
