//! A lab's link: the config an address asks for, with a message for each parameter of ours
//! it could not use, and the address of a session (`?demo=N` plus every control that
//! differs from the spec). Plain logic over the engine's control table: the lab frame
//! reads and writes the page's address with it, and the tools part opens a lab's config
//! from a link it is sent ([`crate::tools`]).

use resilience_sim::scenario::lab_session::{LabModel, LabSession};
use resilience_sim::ConfigError;

use crate::url_state::{
    encode, is_foreign, pairs_left_out, query_pairs, shortened, too_many_pairs, PAGE_PARAMETERS,
};

/// A refusal in the page's words: the control's label, then the engine's reason.
pub fn message<L: LabModel>(e: &ConfigError) -> String {
    match LabSession::<L>::control(&e.field) {
        Some(c) => format!("{}: {}", c.label, e.message),
        None => e.to_string(),
    }
}

/// The session the address asks for, and a message per parameter of ours it could not
/// use (someone else's parameters, such as `utm_source`, are ignored without a word).
pub fn open_from_link<L: LabModel>(query: &str) -> (LabSession<L>, Vec<String>) {
    let (config, messages) = config_from_link::<L>(query);
    (LabSession::new(config), messages)
}

/// The config the address asks for (not run yet), and the messages of [`open_from_link`].
pub fn config_from_link<L: LabModel>(query: &str) -> (L, Vec<String>) {
    let controls = || L::controls().iter().map(|c| c.name);
    let pairs: Vec<(String, String)> = query_pairs(query)
        .filter(|(name, _)| !PAGE_PARAMETERS.contains(&name.as_str()))
        .filter(|(name, _)| {
            !is_foreign(
                name,
                PAGE_PARAMETERS
                    .into_iter()
                    .chain(controls())
                    .chain(L::EXTRA_PARAMETERS.iter().copied()),
            )
        })
        .collect();
    let (config, problems) =
        LabSession::<L>::read_pairs(pairs.iter().map(|(n, v)| (n.as_str(), v.as_str())));
    let mut messages: Vec<String> = problems.iter().map(message::<L>).collect();
    let left_out = pairs_left_out(query);
    if left_out > 0 {
        messages.push(too_many_pairs(left_out));
    }
    (config, shortened(messages))
}

/// The address of `session` on demo `number`: only what differs from the spec.
pub fn link_of<L: LabModel>(number: u32, session: &LabSession<L>) -> String {
    let mut query = format!("demo={number}");
    for (name, value) in session.to_pairs() {
        query.push('&');
        query.push_str(name);
        query.push('=');
        query.push_str(&encode(&value));
    }
    query
}

#[cfg(test)]
mod tests {
    use super::*;
    use resilience_sim::policy::retry::Jitter;
    use resilience_sim::scenario::labs::{AmplificationLab, JitterLab};

    #[test]
    fn a_link_opens_the_lab_and_is_written_back_the_same() {
        let (session, problems) = open_from_link::<JitterLab>("?demo=9&mode=full&seed=7");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(session.config().config.mode, Jitter::Full);
        assert_eq!(link_of(9, &session), "demo=9&mode=full&seed=7");
        let (session, _) = open_from_link::<AmplificationLab>("demo=8");
        assert_eq!(link_of(8, &session), "demo=8");
    }

    #[test]
    fn what_a_link_cannot_use_is_named_by_the_controls_label() {
        let (session, problems) = open_from_link::<JitterLab>(
            "demo=9&clients=0&mode=%3Cb%3E&seed=3&seeds=red&utm_source=x&colour=red",
        );
        assert_eq!(session.config().config.seed, 3);
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(
            problems[0].starts_with("Clients calling at t = 0: must be between"),
            "{}",
            problems[0]
        );
        assert!(
            problems[1].starts_with("Jitter: must be one of"),
            "{}",
            problems[1]
        );
        // A near miss of a control is named; someone else's parameters are not.
        assert_eq!(
            problems[2],
            "seeds: is not a control of the jitter lab (did you mean seed?)"
        );
    }
}
