//! Extensible load manager `TopBundlesLoadData` (value of the top-bundles system topic, key =
//! brokerId; §2.9). The order is kept: TransferShedder relies on it (ascending, largest last).

use serde_json::Value;

use super::diag::ImportError;
use super::fields::{bundle_name, bundle_stats};
use super::json::{Ctx, JPath, field};
use crate::model::{TopBundle, TopBundlesLoadData};

pub(crate) fn parse(
    ctx: &mut Ctx<'_>,
    v: &Value,
    p: &JPath<'_>,
) -> Result<TopBundlesLoadData, ImportError> {
    let m = ctx.object(v, p, "a TopBundlesLoadData")?;
    ctx.check_known(m, &["topBundlesLoadData"], p);
    let mut out = TopBundlesLoadData::default();
    let Some(list) = field(m, "topBundlesLoadData") else {
        return Ok(out);
    };
    let pl = p.key("topBundlesLoadData");
    for (i, item) in ctx.array(list, &pl)?.iter().enumerate() {
        let pi = pl.index(i);
        let o = ctx.object(item, &pi, "a {\"bundleName\", \"stats\"} entry")?;
        ctx.check_known(o, &["bundleName", "stats"], &pi);
        let pn = pi.key("bundleName");
        let name = field(o, "bundleName")
            .ok_or_else(|| ctx.err(&pn, "expected a bundle name, found nothing"))?;
        let name = bundle_name(ctx, ctx.string(name, &pn)?, &pn)?.to_string();
        let stats = match field(o, "stats") {
            Some(s) => bundle_stats(ctx, s, &pi.key("stats"))?,
            None => Default::default(),
        };
        out.top_bundles_load_data.push(TopBundle {
            bundle_name: name,
            stats,
        });
    }
    Ok(out)
}
