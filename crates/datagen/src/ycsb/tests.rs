//! YCSB's distributions against their expected frequencies: a χ² test over the top-k ranks and one
//! tail bucket (everything else).

use super::*;

/// Pearson's χ² statistic of `observed` counts against `expected` probabilities (same buckets).
fn chi_square(observed: &[u64], expected: &[f64]) -> f64 {
    let n: u64 = observed.iter().sum();
    observed
        .iter()
        .zip(expected)
        .map(|(&o, &p)| {
            let e = p * n as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

/// The 0.999 quantile of χ² with `df` degrees of freedom (Wilson–Hilferty), generous enough that a
/// correct generator fails about once in a thousand seeds, tight enough that a wrong θ fails.
fn critical(df: usize) -> f64 {
    let k = df as f64;
    let z = 3.09;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// Counts of `draws` draws bucketed as the top `k` items (their index from `bucket`) plus one tail.
fn counts(k: usize, draws: usize, mut draw: impl FnMut() -> Option<usize>) -> Vec<u64> {
    let mut counts = vec![0u64; k + 1];
    for _ in 0..draws {
        counts[draw().filter(|&i| i < k).unwrap_or(k)] += 1;
    }
    counts
}

/// The probability that Gray et al.'s method, as YCSB's generator runs it, draws rank `r`: the first
/// two ranks exactly `1 / ζ` and `0.5^θ / ζ`, the rest the measure of the uniform draws `u` (past the
/// first two's) with `⌊n (η u − η + 1)^α⌋ = r`.
fn gray_mass(z: &Zipfian, r: u64) -> f64 {
    let u0 = 1.0 / z.zetan;
    let u1 = (1.0 + 0.5f64.powf(z.theta)) / z.zetan;
    let at = |rank: u64| {
        let u = ((rank as f64 / z.items as f64).powf(1.0 / z.alpha) - 1.0 + z.eta) / z.eta;
        u.clamp(u1, 1.0)
    };
    let own = match r {
        0 => u0,
        1 => u1 - u0,
        _ => 0.0,
    };
    own + (at(r + 1) - at(r)).max(0.0)
}

/// The expected bucket probabilities of YCSB's zipfian over `n` items: the top `k`, then the tail.
fn zipf_expected(n: u64, theta: f64, k: usize) -> Vec<f64> {
    let z = Zipfian::new(0, n as i64 - 1, theta).unwrap();
    let mut p: Vec<f64> = (0..k as u64).map(|r| gray_mass(&z, r)).collect();
    p.push(1.0 - p.iter().sum::<f64>());
    p
}

#[test]
fn zipfian_draws_pass_chi_square_on_the_top_ranks_and_the_tail() {
    let (n, k, draws) = (1000u64, 20usize, 200_000usize);
    let zipf = Zipfian::new(1, n as i64, ZIPFIAN_CONSTANT).unwrap();
    let mut rng = Rng::new(41);
    let observed = counts(k, draws, || Some((zipf.next(&mut rng) - 1) as usize));
    let stat = chi_square(&observed, &zipf_expected(n, ZIPFIAN_CONSTANT, k));
    assert!(stat < critical(k), "χ² {stat} above {} for {observed:?}", critical(k));
    // A wrong θ fails the same test: it has power.
    let wrong = chi_square(&observed, &zipf_expected(n, 0.8, k));
    assert!(wrong > critical(k), "θ 0.8 would pass too: χ² {wrong}");
}

#[test]
fn scrambled_zipfian_draws_pass_chi_square_on_the_hashed_top_ranks() {
    let (n, k, draws) = (1000i64, 10usize, 200_000usize);
    let scrambled = ScrambledZipfian::new(0, n - 1).unwrap();
    // Rank r of the 10^10 lands on fnv(r) mod n; the top ranks' items, in rank order (distinct here).
    let top: Vec<i64> = (0..k as u64).map(|r| (fnv_hash64(r) % n as u64) as i64).collect();
    let mut unique = top.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), k, "the top ranks land on distinct items");
    let mut rng = Rng::new(7);
    let observed = counts(k, draws, || {
        let item = scrambled.next(&mut rng);
        top.iter().position(|&t| t == item)
    });
    // Each top item also collects the ranks beyond the top that hash onto it: expected under the full
    // distribution, item i's share is Σ over ranks r with fnv(r) mod n = i. Past the top 10^5 ranks,
    // they spread evenly over the n items.
    let deep = 100_000u64;
    let mut p = vec![0.0; k + 1];
    let mut head = 0.0;
    for r in 0..deep {
        let pr = gray_mass(&scrambled.ranks, r);
        head += pr;
        let item = (fnv_hash64(r) % n as u64) as i64;
        if let Some(i) = top.iter().position(|&t| t == item) {
            p[i] += pr;
        }
    }
    for pi in p.iter_mut().take(k) {
        *pi += (1.0 - head) / n as f64;
    }
    p[k] = 1.0 - p[..k].iter().sum::<f64>();
    let stat = chi_square(&observed, &p);
    assert!(stat < critical(k), "χ² {stat} above {} for {observed:?} against {p:?}", critical(k));
}

#[test]
fn latest_favours_the_newest_items_as_a_zipfian_of_their_age() {
    let (count, k, draws) = (1000u64, 20usize, 200_000usize);
    let latest = Latest::new(count).unwrap();
    let mut rng = Rng::new(3);
    let observed = counts(k, draws, || Some((count as i64 - 1 - latest.next(&mut rng, count)) as usize));
    let stat = chi_square(&observed, &zipf_expected(count, ZIPFIAN_CONSTANT, k));
    assert!(stat < critical(k), "χ² {stat} above {} for {observed:?}", critical(k));
}

#[test]
fn fnv_hash64_is_ycsb_s() {
    // FNV-1a of eight zero bytes, as YCSB's Utils.fnvhash64(0) computes it.
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h = h.wrapping_mul(1_099_511_628_211);
    }
    assert_eq!(fnv_hash64(0), (h as i64).unsigned_abs());
    assert_ne!(fnv_hash64(1), fnv_hash64(2));
}
