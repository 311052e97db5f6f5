//! Run-wide budgets (`max_cost_usd`, `max_tokens`; docs/llm.md, "Usage
//! and cost") that calls in flight cannot overspend together.
//!
//! Before a call, [`Budget::reserve`] books the most it can use (its
//! [`Worst`] case) against the budget, beside what the calls that ended
//! used and what the calls in flight booked; when the call ends its
//! booking is released and its actual usage counted in the totals
//! instead. A call whose worst case does not fit waits for calls in flight
//! to end. A call that still does not fit once none is in flight runs
//! alone when the budget is not spent yet, so the run goes over its budget
//! by less than that one call's usage; once the budget is spent, no call
//! starts.

use std::sync::{Condvar, Mutex, PoisonError};

use wf_llm::price::Price;
use wf_llm::{Api, Request, Usage};

use super::{Totals, context, lock};

/// The most one call can use.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Worst {
    /// Tokens: the input (estimated) and the output cap; `None` when the
    /// call has no cap (a CLI coding agent, which runs model turns until
    /// it is done).
    pub tokens: Option<u64>,
    /// Those tokens priced (0 for a model without a price, whose cost is
    /// not counted); `None` as for `tokens`.
    pub cost_usd: Option<f64>,
}

impl Worst {
    /// A call without a cap.
    pub const UNBOUNDED: Worst = Worst {
        tokens: None,
        cost_usd: None,
    };

    /// The worst case of an HTTP call: its messages estimated at four
    /// characters a token, plus its output cap (`max_output_tokens`, and
    /// the thinking budget Anthropic and Gemini get on top of it for a
    /// `reasoning_effort`), priced with `price`.
    pub fn of_request(request: &Request, api: Api, price: Option<&Price>) -> Worst {
        let input = request
            .history
            .iter()
            .map(|t| context::estimate_tokens(&t.text))
            .sum::<u64>()
            + context::estimate_tokens(&request.prompt);
        let thinking = request
            .reasoning_effort
            .as_deref()
            .and_then(|effort| wf_llm::provider::thinking_budget(api, effort))
            .map_or(0, u64::from);
        let output = u64::from(request.max_output_tokens) + thinking;
        let usage = Usage {
            input,
            output,
            ..Usage::default()
        };
        Worst {
            tokens: Some(usage.total()),
            cost_usd: Some(price.map_or(0.0, |p| p.cost(&usage))),
        }
    }
}

/// What the calls in flight booked.
#[derive(Debug, Default)]
struct InFlight {
    calls: usize,
    tokens: u64,
    cost_usd: f64,
    /// Calls without a cap: while one runs, no other starts.
    unbounded: usize,
}

/// A run's budgets and the bookings of its calls in flight, shared by the
/// agent and its forks.
#[derive(Debug, Default)]
pub struct Budget {
    /// `max_cost_usd`.
    pub max_cost_usd: Option<f64>,
    /// `max_tokens` (input plus output).
    pub max_tokens: Option<u64>,
    in_flight: Mutex<InFlight>,
    /// Signalled when a booking is released.
    released: Condvar,
}

impl Budget {
    /// The budgets `max_cost_usd` and `max_tokens`, when set.
    pub fn new(max_cost_usd: Option<f64>, max_tokens: Option<u64>) -> Budget {
        Budget {
            max_cost_usd,
            max_tokens,
            ..Budget::default()
        }
    }

    /// Why no call may start any more: the totals of the calls that
    /// ended reached a budget.
    pub fn spent(&self, t: &Totals) -> Option<String> {
        if let Some(max) = self.max_cost_usd
            && t.cost_usd >= max
        {
            return Some(format!(
                "the run has spent ${:.4} of its budget max_cost_usd = {max}; raise it and resume",
                t.cost_usd
            ));
        }
        if let Some(max) = self.max_tokens
            && t.usage.total() >= max
        {
            return Some(format!(
                "the run has used {} tokens of its budget max_tokens = {max}; raise it and resume",
                t.usage.total()
            ));
        }
        None
    }

    /// Whether `worst` fits beside the totals `t` and the bookings `f`.
    fn fits(&self, t: &Totals, f: &InFlight, worst: Worst) -> bool {
        if f.unbounded > 0 {
            return false;
        }
        let tokens = match (self.max_tokens, worst.tokens) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(max), Some(n)) => t.usage.total() + f.tokens + n <= max,
        };
        let cost = match (self.max_cost_usd, worst.cost_usd) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(max), Some(c)) => t.cost_usd + f.cost_usd + c <= max,
        };
        tokens && cost
    }

    /// Books `worst` for one call, waiting while it does not fit beside
    /// the calls in flight; a call that does not fit with none in flight
    /// runs alone. `Err`: the budget is spent (the reason, for the
    /// suspension). `totals` are the run's totals, which the call adds
    /// its usage to before it drops the [`Booking`].
    pub fn reserve(&self, totals: &Mutex<Totals>, worst: Worst) -> Result<Booking<'_>, String> {
        if self.max_cost_usd.is_none() && self.max_tokens.is_none() {
            return Ok(Booking(None));
        }
        let mut f = lock(&self.in_flight);
        loop {
            // Lock order: bookings, then totals (a call adds to the totals
            // without holding the bookings).
            let (spent, fits) = {
                let t = lock(totals);
                (self.spent(&t), self.fits(&t, &f, worst))
            };
            if let Some(reason) = spent {
                return Err(reason);
            }
            if fits || f.calls == 0 {
                f.calls += 1;
                f.tokens += worst.tokens.unwrap_or(0);
                f.cost_usd += worst.cost_usd.unwrap_or(0.0);
                f.unbounded += usize::from(worst.tokens.is_none() || worst.cost_usd.is_none());
                return Ok(Booking(Some((self, worst))));
            }
            f = self
                .released
                .wait(f)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// One call's booking, released when dropped (after the call added its
/// usage to the totals, or failed).
pub struct Booking<'a>(Option<(&'a Budget, Worst)>);

impl Drop for Booking<'_> {
    fn drop(&mut self) {
        let Some((budget, worst)) = self.0 else {
            return;
        };
        let mut f = lock(&budget.in_flight);
        f.calls -= 1;
        f.tokens -= worst.tokens.unwrap_or(0);
        f.cost_usd -= worst.cost_usd.unwrap_or(0.0);
        f.unbounded -= usize::from(worst.tokens.is_none() || worst.cost_usd.is_none());
        if f.calls == 0 {
            // No drift of the float sums across many calls.
            f.cost_usd = 0.0;
        }
        drop(f);
        budget.released.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn tokens(n: u64) -> Worst {
        Worst {
            tokens: Some(n),
            cost_usd: Some(0.0),
        }
    }

    fn used(totals: &Mutex<Totals>, n: u64) {
        lock(totals).usage.add(&Usage {
            input: n,
            ..Usage::default()
        });
    }

    #[test]
    fn bookings_in_flight_count_against_the_budget() {
        let budget = Budget::new(None, Some(1000));
        let totals = Mutex::default();
        let a = budget.reserve(&totals, tokens(400)).unwrap();
        let b = budget.reserve(&totals, tokens(400)).unwrap();
        // A third would pass 1000 with the two in flight: it waits, and
        // once they ended (using their whole worst case) the budget is
        // spent.
        std::thread::scope(|s| {
            let third = s.spawn(|| budget.reserve(&totals, tokens(400)).map(|_| ()));
            std::thread::sleep(Duration::from_millis(50));
            assert!(!third.is_finished(), "the third call waits");
            used(&totals, 1000);
            drop(a);
            drop(b);
            let e = third.join().unwrap().unwrap_err();
            assert!(
                e.contains("used 1000 tokens of its budget max_tokens = 1000"),
                "{e}"
            );
        });
    }

    #[test]
    fn a_call_over_the_rest_runs_alone_and_an_unbounded_one_excludes_others() {
        let budget = Budget::new(Some(1.0), None);
        let totals = Mutex::default();
        // Over the whole budget, nothing in flight, nothing spent: it runs.
        let big = budget
            .reserve(
                &totals,
                Worst {
                    tokens: Some(1),
                    cost_usd: Some(5.0),
                },
            )
            .unwrap();
        drop(big);
        let cli = budget.reserve(&totals, Worst::UNBOUNDED).unwrap();
        std::thread::scope(|s| {
            let small = s.spawn(|| budget.reserve(&totals, tokens(1)).map(|_| ()));
            std::thread::sleep(Duration::from_millis(50));
            assert!(!small.is_finished(), "waits for the unbounded call");
            drop(cli);
            assert!(small.join().unwrap().is_ok());
        });
        // Without budgets nothing is booked.
        let free = Budget::new(None, None);
        let _a = free.reserve(&totals, Worst::UNBOUNDED).unwrap();
        let _b = free.reserve(&totals, Worst::UNBOUNDED).unwrap();
    }

    #[test]
    fn the_worst_case_books_the_output_the_request_asks_for() {
        // The thinking budget comes from wf-llm's table, the one the
        // request body is built from: the two cannot drift apart.
        for effort in ["low", "medium", "high"] {
            let request = Request {
                model: "m".into(),
                history: Vec::new(),
                prompt: "abcd".into(),
                reasoning_effort: Some(effort.into()),
                max_output_tokens: 100,
                stream: false,
                structured: None,
            };
            let body = wf_llm::provider::body(Api::Anthropic, &request);
            let asked = body["max_tokens"].as_u64().unwrap();
            assert!(asked > 100, "{effort}: the body adds a thinking budget");
            let worst = Worst::of_request(&request, Api::Anthropic, None);
            assert_eq!(worst.tokens, Some(1 + asked), "{effort}");
            let gemini = wf_llm::provider::body(Api::Gemini, &request);
            let thinking = gemini["generationConfig"]["thinkingConfig"]["thinkingBudget"]
                .as_u64()
                .unwrap();
            let worst = Worst::of_request(&request, Api::Gemini, None);
            assert_eq!(worst.tokens, Some(1 + 100 + thinking), "{effort}");
            let openai = Worst::of_request(&request, Api::OpenAiResponses, None);
            assert_eq!(openai.tokens, Some(1 + 100), "{effort}");
        }
    }
}
