//! `report.html` in a real browser: headless Chromium (Debian's `chromium`) renders the page a run
//! wrote, and the screenshot must show the charts' lines.

use std::process::Command;

use crate::common::oltpgen;

/// Pixels close to `rgb` in an RGBA screenshot.
fn pixels_like(png_path: &std::path::Path, rgb: [u8; 3]) -> usize {
    let decoder = png::Decoder::new(std::fs::File::open(png_path).expect("the screenshot exists"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let channels = info.color_type.samples();
    buf[..info.buffer_size()]
        .chunks(channels)
        .filter(|px| px.iter().zip(rgb).all(|(&a, b)| a.abs_diff(b) <= 24))
        .count()
}

#[test]
fn the_report_draws_its_charts_in_a_browser() {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()))
        .expect("headless Chromium is needed for this test: apt-get install chromium (.ci/run installs it)");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    let out = oltpgen(&[
        "tpcc",
        "--scale",
        "1",
        "--users",
        "2,4",
        "--duration",
        "4s",
        "--warmup",
        "1s",
        "--think-time",
        "0",
        "--keying-time",
        "0",
        "--report-interval",
        "1s",
        "--temp-db",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ])
    .code
    .eq(&0)
    .then_some(out)
    .expect("the run writes its result");
    let html =
        std::fs::read_to_string(out.join("report.html")).expect("report.html is written beside result.json");
    assert_eq!(html.matches("<svg").count(), 5, "five charts");
    let shot = dir.path().join("shot.png");
    let status = Command::new(chromium)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--window-size=1000,2200"])
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", out.join("report.html").display()))
        .output()
        .expect("chromium runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    // The throughput lines are drawn in the palette's first colour, the response-time p95 in its second.
    let blue = pixels_like(&shot, [0x1f, 0x77, 0xb4]);
    let red = pixels_like(&shot, [0xd6, 0x27, 0x28]);
    eprintln!("screenshot: {blue} throughput-blue and {red} response-time-red pixels");
    assert!(blue > 1_500, "the throughput lines are drawn: {blue} pixels");
    assert!(red > 500, "the response-time lines are drawn: {red} pixels");
}
