//! Extensible load manager `TopBundlesLoadData` (value of the top-bundles system topic, key =
//! brokerId; §2.9). The order is kept: TransferShedder relies on it (ascending, largest last). One
//! typed reader ([`typed`] leaves), from the text or from a parsed tree (our snapshot file).

use super::diag::ImportError;
use super::fields::{RawStats, bundle_stats, canonical_bundle_name};
use super::json::{Ctx, JPath};
use super::typed::{self, Leaf, List, Object, Unknown, json_object};
use crate::model::{TopBundle, TopBundlesLoadData};

/// A `TopBundlesLoadData` as read.
#[derive(Default)]
pub(crate) struct RawTopBundles<'a> {
    top_bundles_load_data: Option<List<'a, Object<'a, RawEntry<'a>>>>,
    unknown: Unknown<'a>,
}

json_object!(RawTopBundles, "a TopBundlesLoadData", {
    "topBundlesLoadData" => top_bundles_load_data,
}, unknown: unknown);

/// One `{"bundleName", "stats"}` entry as read.
#[derive(Default)]
pub(crate) struct RawEntry<'a> {
    bundle_name: Option<Leaf<'a>>,
    stats: Option<Object<'a, RawStats<'a>>>,
    unknown: Unknown<'a>,
}

json_object!(RawEntry, "a top bundle entry", {
    "bundleName" => bundle_name,
    "stats" => stats,
}, unknown: unknown);

/// A `TopBundlesLoadData`, read from its text.
pub(crate) fn from_text(ctx: &mut Ctx<'_>, text: &str) -> Result<TopBundlesLoadData, ImportError> {
    let raw = typed::from_text(ctx.file, text)?;
    check(ctx, raw, &JPath::ROOT)
}

/// The checks: every entry names a bundle; its stats as in a load report.
pub(crate) fn check(
    ctx: &mut Ctx<'_>,
    raw: Object<'_, RawTopBundles<'_>>,
    p: &JPath<'_>,
) -> Result<TopBundlesLoadData, ImportError> {
    let m = raw.get(ctx, p, "a TopBundlesLoadData")?;
    m.unknown.warn(ctx, p);
    let mut out = TopBundlesLoadData::default();
    let Some(list) = m.top_bundles_load_data else {
        return Ok(out);
    };
    let pl = p.key("topBundlesLoadData");
    for (i, item) in list.get(ctx, &pl)?.into_iter().enumerate() {
        let pi = pl.index(i);
        let o = item.get(ctx, &pi, "a {\"bundleName\", \"stats\"} entry")?;
        o.unknown.warn(ctx, &pi);
        let pn = pi.key("bundleName");
        let name = o
            .bundle_name
            .ok_or_else(|| ctx.err(&pn, "expected a bundle name, found nothing"))?;
        let name = canonical_bundle_name(ctx, name.string(ctx, &pn)?, &pn)?;
        let stats = match o.stats {
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
