//! The HTML pages, self-contained (no scripts, no network: styles inline, charts as inline SVG):
//! report.html of one result ([`result`], its charts in [`charts`]) and the page comparing several
//! ([`compare`]). Both draw with the SVG plotting kit ([`svg`]), open with the same frame (`frame`)
//! and sum the time series per interval alike (`intervals`).

pub mod charts;
pub mod compare;
pub(crate) mod frame;
pub use frame::is_page;
pub(crate) mod intervals;
pub mod result;
pub mod svg;
