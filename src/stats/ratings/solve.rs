//! The fit's numerics: the log-likelihood of a tally of pairings, its maximum by
//! Newton's method with a conjugate-gradient solve, and each player's likelihood
//! interval. Every pass is over the pairings, never over players squared.
//!
//! The information (minus the Hessian of the log-likelihood) is a weighted graph
//! Laplacian (a pairing's weight `games · p · (1 - p)`) plus the phantom's weights on
//! its diagonal, so a Newton step is solved by conjugate gradients with the diagonal as
//! preconditioner,
//! one pass over the pairings per iteration. A step is halved until it gains what its
//! slope promises (Armijo). Before the first step, and again after a step that had to
//! be cut, one sweep of one-player maximisations (each player's rating with the others
//! held) moves the players whose own games moved far (a resample that drew few of
//! them) close to where they belong, so that Newton's steps are not cut for them.

use crate::elo::ELO_PER_NAT;

/// The fit has converged when its Newton step moves no rating by more than this many Elo.
const TOLERANCE_ELO: f64 = 1e-6;
/// Newton steps before the fit gives up.
const MAX_ITERATIONS: usize = 100;
/// Halvings of one Newton step before it is taken as lost in rounding.
const MAX_HALVINGS: usize = 40;
/// The share of its slope's promise a step must gain (Armijo's constant).
const SUFFICIENT_GAIN: f64 = 1e-4;
/// A one-player step never moves a rating further than this, in natural-log odds
/// (about 520 Elo): far from its maximum the likelihood is nearly straight, and a
/// Newton step on it would overshoot.
const MAX_PLAYER_STEP: f64 = 3.0;
/// One-player maximisations of a sweep stop within this many natural-log odds (Newton
/// polishes the rest).
const SWEEP_TOLERANCE: f64 = 1e-4;
/// Steps of one one-player maximisation, and bisections of one interval bound.
const MAX_PLAYER_STEPS: usize = 60;

/// The pairings of a fit: who meets whom, and which pairings each player is in.
pub(super) struct Graph {
    /// Each pairing as (a, b), `a < b`; the phantom is the player after the last.
    pub(super) ends: Vec<(usize, usize)>,
    /// The pairings of each player (the phantom's included), by index into `ends`.
    of: Vec<Vec<usize>>,
    /// Row of each player in the reduced system: `None` for a fixed one and the phantom.
    row: Vec<Option<usize>>,
    /// The players with a row, in row order.
    free: Vec<usize>,
}

/// One tally of the pairings of a [`Graph`]: games and points of `a`, virtual draws
/// included.
#[derive(Clone, Debug)]
pub(super) struct Tally {
    pub(super) games: Vec<f64>,
    pub(super) points: Vec<f64>,
}

/// A fit that did not settle: the steps taken and the players its last step still moved.
#[derive(Debug)]
pub(super) struct Stuck {
    pub(super) iterations: usize,
    pub(super) moving: Vec<usize>,
}

impl Graph {
    /// The graph of `ends` among `fixed.len()` players and the phantom (held, as the
    /// `fixed` ones are).
    pub(super) fn new(fixed: &[bool], ends: Vec<(usize, usize)>) -> Graph {
        let mut of = vec![Vec::new(); fixed.len() + 1];
        for (pairing, &(a, b)) in ends.iter().enumerate() {
            of[a].push(pairing);
            of[b].push(pairing);
        }
        let free: Vec<usize> = (0..fixed.len()).filter(|&p| !fixed[p]).collect();
        let mut row = vec![None; fixed.len() + 1];
        for (r, &player) in free.iter().enumerate() {
            row[player] = Some(r);
        }
        Graph { ends, of, row, free }
    }

    /// The maximum-likelihood ratings of `tally` in natural-log odds from `start` (one
    /// entry per player, then the phantom's); the fixed players and the phantom stay
    /// where `start` puts them.
    pub(super) fn maximise(&self, tally: &Tally, start: Vec<f64>) -> Result<Vec<f64>, Stuck> {
        let mut theta = start;
        self.sweep(tally, &mut theta);
        let mut likelihood = self.log_likelihood(tally, &theta);
        let mut step = Vec::new();
        for _ in 0..MAX_ITERATIONS {
            let (gradient, weights, diagonal) = self.derivatives(tally, &theta);
            step = self.newton_step(&gradient, &weights, &diagonal);
            let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs())) * ELO_PER_NAT;
            if largest < TOLERANCE_ELO {
                return Ok(self.moved(&theta, &step, 1.0));
            }
            let slope: f64 = gradient.iter().zip(&step).map(|(g, s)| g * s).sum();
            // Allowing for rounding in a sum over every pairing.
            let slack = 1e-12 * likelihood.abs().max(1.0);
            let mut scale = 1.0;
            let mut taken = None;
            for _ in 0..MAX_HALVINGS {
                let next = self.moved(&theta, &step, scale);
                let next_likelihood = self.log_likelihood(tally, &next);
                if next_likelihood >= likelihood + SUFFICIENT_GAIN * scale * slope - slack {
                    taken = Some((next, next_likelihood));
                    break;
                }
                scale *= 0.5;
            }
            let Some((next, next_likelihood)) = taken else {
                // No step helps: the maximum is within rounding of here.
                return Ok(theta);
            };
            theta = next;
            likelihood = next_likelihood;
            if scale < 1.0 {
                self.sweep(tally, &mut theta);
                likelihood = self.log_likelihood(tally, &theta);
            }
        }
        let tolerance = TOLERANCE_ELO / ELO_PER_NAT;
        Err(Stuck {
            iterations: MAX_ITERATIONS,
            moving: self
                .free
                .iter()
                .zip(&step)
                .filter(|(_, s)| s.abs() >= tolerance)
                .map(|(&player, _)| player)
                .collect(),
        })
    }

    /// `theta` with each free player moved by `scale` times its entry of `step`.
    fn moved(&self, theta: &[f64], step: &[f64], scale: f64) -> Vec<f64> {
        let mut next = theta.to_vec();
        for (&player, s) in self.free.iter().zip(step) {
            next[player] += scale * s;
        }
        next
    }

    /// The log-likelihood's gradient (by row), each pairing's weight `games p (1 - p)`,
    /// and the diagonal of the information (minus the Hessian), by row.
    fn derivatives(&self, tally: &Tally, theta: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = self.free.len();
        let mut gradient = vec![0.0; n];
        let mut diagonal = vec![0.0; n];
        let mut weights = vec![0.0; self.ends.len()];
        for (pairing, &(a, b)) in self.ends.iter().enumerate() {
            let (games, points) = (tally.games[pairing], tally.points[pairing]);
            if games == 0.0 {
                continue;
            }
            let (p, q) = win_loss(theta[a] - theta[b]);
            // points - games p, without the cancellation of 1 - p near 1.
            let slope = points * q - (games - points) * p;
            let weight = games * p * q;
            weights[pairing] = weight;
            if let Some(i) = self.row[a] {
                gradient[i] += slope;
                diagonal[i] += weight;
            }
            if let Some(j) = self.row[b] {
                gradient[j] -= slope;
                diagonal[j] += weight;
            }
        }
        (gradient, weights, diagonal)
    }

    /// The information (minus the Hessian) times `v`, by row.
    fn information_times(&self, weights: &[f64], v: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        for (pairing, &(a, b)) in self.ends.iter().enumerate() {
            let weight = weights[pairing];
            if weight == 0.0 {
                continue;
            }
            let (ra, rb) = (self.row[a], self.row[b]);
            let difference = ra.map_or(0.0, |i| v[i]) - rb.map_or(0.0, |j| v[j]);
            if let Some(i) = ra {
                out[i] += weight * difference;
            }
            if let Some(j) = rb {
                out[j] -= weight * difference;
            }
        }
    }

    /// The Newton step: the information solved against the gradient by conjugate
    /// gradients preconditioned by the diagonal, to a residual a billionth of the
    /// gradient's (or as far as `2 n + 100` iterations go: still a step uphill).
    fn newton_step(&self, gradient: &[f64], weights: &[f64], diagonal: &[f64]) -> Vec<f64> {
        let n = gradient.len();
        let norm = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let target = 1e-9 * norm(gradient);
        let mut step = vec![0.0; n];
        let mut residual = gradient.to_vec();
        let precondition = |r: &[f64]| -> Vec<f64> {
            r.iter()
                .zip(diagonal)
                .map(|(r, d)| if *d > 0.0 { r / d } else { *r })
                .collect()
        };
        let mut z = precondition(&residual);
        let mut direction = z.clone();
        let mut rz: f64 = residual.iter().zip(&z).map(|(r, z)| r * z).sum();
        let mut product = vec![0.0; n];
        for _ in 0..2 * n + 100 {
            if norm(&residual) <= target {
                break;
            }
            self.information_times(weights, &direction, &mut product);
            let curvature: f64 = direction.iter().zip(&product).map(|(d, p)| d * p).sum();
            if !(curvature > 0.0 && curvature.is_finite()) {
                break;
            }
            let alpha = rz / curvature;
            for i in 0..n {
                step[i] += alpha * direction[i];
                residual[i] -= alpha * product[i];
            }
            z = precondition(&residual);
            let next_rz: f64 = residual.iter().zip(&z).map(|(r, z)| r * z).sum();
            let beta = next_rz / rz;
            rz = next_rz;
            for i in 0..n {
                direction[i] = z[i] + beta * direction[i];
            }
        }
        step
    }

    /// One pass of one-player maximisations, each free player's rating with the others
    /// as they stand (the latest of them).
    fn sweep(&self, tally: &Tally, theta: &mut [f64]) {
        for &player in &self.free {
            theta[player] = self.player_maximum(tally, theta, player);
        }
    }

    /// The rating of `player` that maximises the likelihood with the others held as in
    /// `theta`: Newton's method kept inside a bracket, each step at most
    /// [`MAX_PLAYER_STEP`].
    fn player_maximum(&self, tally: &Tally, theta: &[f64], player: usize) -> f64 {
        let (mut low, mut high) = (f64::NEG_INFINITY, f64::INFINITY);
        let mut x = theta[player];
        for _ in 0..MAX_PLAYER_STEPS {
            let (slope, weight) = self.player_derivatives(tally, theta, player, x);
            if slope == 0.0 {
                break;
            }
            if slope > 0.0 {
                low = x;
            } else {
                high = x;
            }
            let newton = if weight > 0.0 { slope / weight } else { slope.signum() };
            let mut next = x + newton.clamp(-MAX_PLAYER_STEP, MAX_PLAYER_STEP);
            if !(next > low && next < high) {
                next = 0.5 * (low + high);
            }
            let done = (next - x).abs() < SWEEP_TOLERANCE;
            x = next;
            if done || !x.is_finite() {
                break;
            }
        }
        if x.is_finite() {
            x
        } else {
            theta[player]
        }
    }

    /// The slope and the weight (minus the second derivative) of the likelihood in the
    /// rating of `player`, at `x`, the others as in `theta`.
    fn player_derivatives(&self, tally: &Tally, theta: &[f64], player: usize, x: f64) -> (f64, f64) {
        let (mut slope, mut weight) = (0.0, 0.0);
        for &pairing in &self.of[player] {
            let (games, points, d) = self.seen_by(tally, theta, pairing, player, x);
            let (p, q) = win_loss(d);
            slope += points * q - (games - points) * p;
            weight += games * p * q;
        }
        (slope, weight)
    }

    /// The log-likelihood of the games of `player`, its rating `x`, the others as in
    /// `theta`.
    fn player_likelihood(&self, tally: &Tally, theta: &[f64], player: usize, x: f64) -> f64 {
        self.of[player]
            .iter()
            .map(|&pairing| {
                let (games, points, d) = self.seen_by(tally, theta, pairing, player, x);
                points * log_sigmoid(d) + (games - points) * log_sigmoid(-d)
            })
            .sum()
    }

    /// A pairing seen from `player`, its rating `x`: its games, its points, and its
    /// rating minus the opponent's.
    fn seen_by(&self, tally: &Tally, theta: &[f64], pairing: usize, player: usize, x: f64) -> (f64, f64, f64) {
        let (a, b) = self.ends[pairing];
        let games = tally.games[pairing];
        if a == player {
            (games, tally.points[pairing], x - theta[b])
        } else {
            (games, games - tally.points[pairing], x - theta[a])
        }
    }

    /// The likelihood interval of `player` at the maximum `theta`, the others held
    /// there: the ratings at which its log-likelihood is `drop` below its maximum. The
    /// phantom's virtual draw (half a win, half a loss) makes both ends finite.
    pub(super) fn likelihood_interval(&self, tally: &Tally, theta: &[f64], player: usize, drop: f64) -> (f64, f64) {
        let best = theta[player];
        let top = self.player_likelihood(tally, theta, player, best);
        let below = |x: f64| self.player_likelihood(tally, theta, player, x) < top - drop;
        let bound = |direction: f64| {
            let mut inside = best;
            let mut width = 0.5;
            let mut outside = best + direction * width;
            // Out until below: the likelihood falls at least linearly on each side.
            while !below(outside) && width < 1e6 {
                inside = outside;
                width *= 2.0;
                outside = best + direction * width;
            }
            for _ in 0..MAX_PLAYER_STEPS {
                let middle = 0.5 * (inside + outside);
                if below(middle) {
                    outside = middle;
                } else {
                    inside = middle;
                }
            }
            // The last point inside: the interval holds every rating as likely as it.
            inside
        };
        (bound(-1.0), bound(1.0))
    }

    /// The log-likelihood of `tally` at `theta`.
    fn log_likelihood(&self, tally: &Tally, theta: &[f64]) -> f64 {
        self.ends
            .iter()
            .enumerate()
            .map(|(pairing, &(a, b))| {
                let (games, points) = (tally.games[pairing], tally.points[pairing]);
                if games == 0.0 {
                    return 0.0;
                }
                let d = theta[a] - theta[b];
                points * log_sigmoid(d) + (games - points) * log_sigmoid(-d)
            })
            .sum()
    }
}

/// `(sigmoid(d), sigmoid(-d))`, each accurate even where the other is near 1.
fn win_loss(d: f64) -> (f64, f64) {
    let e = (-d.abs()).exp();
    let (near, far) = (1.0 / (1.0 + e), e / (1.0 + e));
    if d >= 0.0 {
        (near, far)
    } else {
        (far, near)
    }
}

/// `ln(sigmoid(x))` without overflow: `-softplus(-x)`.
fn log_sigmoid(x: f64) -> f64 {
    x.min(0.0) - (-x.abs()).exp().ln_1p()
}

/// The standard normal quantile of `p` in (0, 1), by Acklam's rational approximation
/// (relative error below 1.2e-9).
pub(super) fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.024_25;
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}
