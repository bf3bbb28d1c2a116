//! What every HTML page of the report shares: its frame (the head with the page's title and its inline
//! styles, [`open_page`]) and the escaping of text into HTML and SVG ([`esc`]).

/// The page's styles: readable on a desk, on a phone (tables scroll, charts shrink) and on paper.
pub(crate) const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1100px;padding:0 1em;color:#222}\
    table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #ddd}\
    .kv td,.kv th,td.l,th.l{text-align:left}.fail{color:#d62728;font-weight:bold}.scroll{overflow-x:auto}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(520px,100%),1fr));gap:0 1.5em}.about{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}\
    .headline{font-size:1.4em;margin:.3em 0}tr.best td{font-weight:bold;background:#eef5ff}.note{color:#555}h2{margin-top:1.5em;border-bottom:1px solid #ccc}\
    svg{display:block;margin:1em 0;max-width:100%;height:auto}\
    @media (max-width:700px){body{margin:.5em;padding:0}h1{font-size:1.4em}.headline{font-size:1.1em}td,th{padding:2px 4px;font-size:.85em}}\
    @media print{body{margin:0;max-width:none}svg,table{break-inside:avoid}h2{break-after:avoid}}";

/// The page opened: its title and styles.
pub(crate) fn open_page(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>{STYLE}</style></head><body><h1>{t}</h1>",
        t = esc(title)
    )
}

/// Whether `text` is a page the report's frame opened: what `report html --replace` may write over (a page
/// oltpgen wrote), and nothing else.
pub fn is_page(text: &str) -> bool {
    let opening = open_page("");
    let head = &opening[..opening.find("<title>").unwrap_or(opening.len())];
    text.starts_with(head) && text.contains(&format!("<style>{STYLE}</style>"))
}

/// Text made safe for HTML, in elements and in quoted attributes.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_known_by_its_frame() {
        assert!(is_page(&format!("{}<p>x</p></body></html>", open_page("a <title>"))));
        assert!(!is_page("<!DOCTYPE html>\n<html><head><title>mine</title></head></html>"));
        assert!(!is_page("notes.txt: keep me"));
        assert!(!is_page(""));
    }
}
