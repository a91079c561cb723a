//! Modular placement strategies (`loadBalancerLoadPlacementStrategy`, §8): which broker gets a bundle.

use serde::{Deserialize, Serialize};

use super::LoadData;
use crate::config::LoadBalancerConfig;
use crate::model::BundleData;
use crate::rng::Picker;

/// A strategy's answer: the broker, the set it picked among at random, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementChoice {
    pub broker: String,
    /// The equally good brokers the pick was made among (one element when deterministic).
    pub choice_set: Vec<String>,
    /// Human-oriented explanation with the numbers compared.
    pub reason: String,
    /// An outside pick was offered and was not in `choice_set`.
    pub pick_rejected: bool,
}

pub trait PlacementStrategy {
    fn name(&self) -> &'static str;

    /// `selectBroker(candidates, bundleData, loadData, conf)`.
    fn select_broker(
        &mut self,
        candidates: &[String],
        bundle: &str,
        bundle_data: &BundleData,
        data: &LoadData,
        cfg: &LoadBalancerConfig,
        picker: &mut dyn Picker,
    ) -> Option<PlacementChoice>;

    fn on_active_brokers_change(&mut self, _active_brokers: &[String]) {}
}
