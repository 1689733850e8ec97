//! Where `llm:MODEL` players' requests go, as given ([`HostOptions`]: the host flags,
//! a tournament file's `[[llm]]` keys) and as a fleet file gives it ([`parse_fleet`]),
//! resolved into checked [`HostConfig`]s. The caller reads files and the environment
//! and passes their contents and a variable lookup in.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Deserializer};

use crate::fleet::{FleetError, HostConfig, DEFAULT_KEY_ENV, DEFAULT_MAX_IN_FLIGHT};
use crate::host::{ollama_base_url, without_credentials, ParseHostError, DEFAULT_OLLAMA_HOST};
use crate::turns::{check_group_name, GroupNameError};
use crate::{Api, RetryPolicy, DEFAULT_MAX_RETRIES};

/// Where `llm:MODEL` players' requests go, as given: one server, several, or a fleet
/// file (the host flags, and a tournament's `[[llm]]` keys under the same names). Its
/// defaults ([`HostOptions::default`]) are the flags' and the tables'.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostOptions {
    /// The server API (any case, as `--api` reads it).
    #[serde(deserialize_with = "record::by_its_parser")]
    pub api: Option<Api>,
    /// Server addresses: `host[:port]` or URLs; several make a fleet.
    pub host: Vec<String>,
    /// A fleet file's path.
    pub fleet: Option<PathBuf>,
    /// Requests at once on each host named in `host`.
    pub max_in_flight: usize,
    /// The variable holding an OpenAI-compatible host's API key.
    pub api_key_env: String,
    /// Seconds to wait for one answer.
    pub timeout: f64,
    /// Extra attempts after a transient failure.
    pub max_retries: u32,
    /// The group of hosts on one machine's cores (CPU servers) that `host` belong
    /// to: the group's hosts take turns, one request in flight between them.
    #[serde(deserialize_with = "group_name")]
    pub share_cores: Option<String>,
}

/// A `share_cores` name, checked as it is read ([`check_group_name`]).
fn group_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    let name = Option::<String>::deserialize(deserializer)?;
    if let Some(name) = &name {
        check_group_name(name).map_err(serde::de::Error::custom)?;
    }
    Ok(name)
}

impl Default for HostOptions {
    /// Nothing given: the API's default host, one request at once, a 300 s timeout,
    /// [`DEFAULT_MAX_RETRIES`].
    fn default() -> HostOptions {
        HostOptions {
            api: None,
            host: Vec::new(),
            fleet: None,
            max_in_flight: HostOptions::MAX_IN_FLIGHT,
            api_key_env: DEFAULT_KEY_ENV.to_string(),
            timeout: HostOptions::TIMEOUT_S,
            max_retries: HostOptions::MAX_RETRIES,
            share_cores: None,
        }
    }
}

/// A server address that is none (named without its credentials).
#[derive(Debug, thiserror::Error)]
#[error("bad --host {host:?} (or OLLAMA_HOST)")]
pub struct BadHostError {
    /// The address as given, without credentials.
    pub host: String,
    /// Why it is none.
    #[source]
    pub source: ParseHostError,
}

/// Why the hosts given name no servers.
#[derive(Debug, thiserror::Error)]
pub enum HostsError {
    /// A `--host` (or `OLLAMA_HOST`) that is no address.
    #[error(transparent)]
    Host(#[from] BadHostError),
    /// A key variable named on purpose is unset.
    #[error(transparent)]
    Key(#[from] FleetError),
}

/// A fleet file that cannot be used (each message names the file and the fix).
#[derive(Debug, thiserror::Error)]
pub enum FleetFileError {
    /// Not TOML of `[[hosts]]` tables.
    #[error(
        "bad --fleet {path}: expected [[hosts]] tables with url, api (ollama|openai), max_in_flight, optional \
         api_key_env, models and share_cores"
    )]
    Toml {
        /// The file.
        path: String,
        /// What the TOML reader said.
        #[source]
        source: toml::de::Error,
    },
    /// No `[[hosts]]` table.
    #[error("bad --fleet {path}: it lists no [[hosts]]")]
    NoHosts {
        /// The file.
        path: String,
    },
    /// A host without an address.
    #[error("bad --fleet {path}: a [[hosts]] url is empty: give host[:port] or a URL such as http://10.0.0.5:11434")]
    EmptyUrl {
        /// The file.
        path: String,
    },
    /// A host's `max_in_flight` out of range.
    #[error("bad --fleet {path}: host {url}: max_in_flight {why}")]
    MaxInFlight {
        /// The file.
        path: String,
        /// The host as written.
        url: String,
        /// The range check's message.
        why: String,
    },
    /// A host's `share_cores` that is no group name.
    #[error("bad --fleet {path}: host {url}")]
    ShareCores {
        /// The file.
        path: String,
        /// The host as written.
        url: String,
        /// What is wrong with the name.
        #[source]
        source: GroupNameError,
    },
    /// A host's address that is none.
    #[error("bad --fleet {path}")]
    Url {
        /// The file.
        path: String,
        /// Why the address is none.
        #[source]
        source: BadHostError,
    },
}

/// A fleet file: `[[hosts]]` tables.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FleetFile {
    hosts: Vec<HostConfig>,
}

impl HostOptions {
    /// Requests at once on each host unless told otherwise (a fleet file's
    /// `max_in_flight` alike).
    pub const MAX_IN_FLIGHT: usize = DEFAULT_MAX_IN_FLIGHT;
    /// Seconds to wait for one answer unless told otherwise.
    pub const TIMEOUT_S: f64 = 300.0;
    /// Extra attempts after a transient failure unless told otherwise.
    pub const MAX_RETRIES: u32 = DEFAULT_MAX_RETRIES;
    /// Where an OpenAI-compatible server is looked for when no host is given.
    pub const OPENAI_HOST: &'static str = "127.0.0.1:8080";

    /// Whether a server was named (so a resume takes these hosts).
    pub fn given(&self) -> bool {
        self.api.is_some() || !self.host.is_empty() || self.fleet.is_some()
    }

    /// The hosts, each with its API key: `fleet` (the fleet file's hosts, read by
    /// [`parse_fleet`]) when a fleet file is given, else the `host` addresses, else an
    /// agent file's (`file`: its `api` and comma-separated `host`), else the API's
    /// default (`OLLAMA_HOST` for Ollama). `env` looks up `OLLAMA_HOST` and the key
    /// variables.
    pub fn hosts(
        &self,
        file: (Option<Api>, Option<&str>),
        fleet: Option<Vec<HostConfig>>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<HostConfig>, HostsError> {
        let api = self.api.or(file.0).unwrap_or_default();
        let mut hosts = match fleet {
            Some(hosts) => hosts,
            None => {
                let mut given = self.host.clone();
                if given.is_empty() {
                    given.extend(file.1.iter().flat_map(|h| h.split(',').map(str::to_string)));
                }
                if given.is_empty() {
                    given.push(match api {
                        Api::Ollama => env("OLLAMA_HOST").unwrap_or_else(|| DEFAULT_OLLAMA_HOST.to_string()),
                        Api::Openai => HostOptions::OPENAI_HOST.to_string(),
                    });
                }
                given
                    .iter()
                    .map(|raw| {
                        let mut host = HostConfig::new(host_url(api, raw)?, api);
                        host.max_in_flight = self.max_in_flight;
                        host.share_cores = self.share_cores.clone();
                        host.api_key_env = Some(self.api_key_env.clone());
                        Ok(host)
                    })
                    .collect::<Result<Vec<_>, BadHostError>>()?
            }
        };
        // A variable named on purpose (a fleet file's, or a non-default api_key_env)
        // must hold a key: said now, before any request.
        let required = self.fleet.is_some() || self.api_key_env != DEFAULT_KEY_ENV;
        for host in &mut hosts {
            host.key = host.api_key(env, required)?;
        }
        Ok(hosts)
    }

    /// How long one answer may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout)
    }

    /// How transient failures are retried.
    pub fn retry(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            ..RetryPolicy::default()
        }
    }
}

/// A server address as a base URL: Ollama's rules ([`ollama_base_url`]) for ollama
/// hosts, `http://` added to a bare `host[:port]` for openai ones (no trailing slash, no
/// `/v1`: one spelling per server, as exchanges name it).
pub fn host_url(api: Api, raw: &str) -> Result<String, BadHostError> {
    match api {
        Api::Ollama => ollama_base_url(raw).map_err(|source| BadHostError {
            host: without_credentials(raw.trim()),
            source,
        }),
        Api::Openai => {
            let trimmed = raw.trim().trim_end_matches('/');
            let trimmed = trimmed.strip_suffix("/v1").unwrap_or(trimmed);
            if trimmed.contains("://") {
                Ok(trimmed.to_string())
            } else {
                Ok(format!("http://{trimmed}"))
            }
        }
    }
}

/// The hosts of the fleet file `path`, whose text is `text`: at least one, each with
/// an address (made a base URL by [`host_url`]) and a `max_in_flight` that
/// `check_in_flight` takes (it says why not).
pub fn parse_fleet(
    text: &str,
    path: &Path,
    check_in_flight: &dyn Fn(usize) -> Result<(), String>,
) -> Result<Vec<HostConfig>, FleetFileError> {
    let path = path.display().to_string();
    let file: FleetFile = toml::from_str(text).map_err(|source| FleetFileError::Toml {
        path: path.clone(),
        source,
    })?;
    if file.hosts.is_empty() {
        return Err(FleetFileError::NoHosts { path });
    }
    file.hosts
        .into_iter()
        .map(|mut host| {
            if host.url.trim().is_empty() {
                return Err(FleetFileError::EmptyUrl { path: path.clone() });
            }
            if let Err(why) = check_in_flight(host.max_in_flight) {
                return Err(FleetFileError::MaxInFlight {
                    path: path.clone(),
                    url: host.url,
                    why,
                });
            }
            if let Some(Err(source)) = host.share_cores.as_deref().map(check_group_name) {
                return Err(FleetFileError::ShareCores {
                    path: path.clone(),
                    url: host.url,
                    source,
                });
            }
            host.url = host_url(host.api, &host.url).map_err(|source| FleetFileError::Url {
                path: path.clone(),
                source,
            })?;
            Ok(host)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tournament's `[[llm]]` host keys read as the host flags do, their defaults
    /// the flags' own; a word reads in any case, as `--api` reads it.
    #[test]
    fn host_keys_read_with_the_flags_defaults() {
        let none: HostOptions = toml::from_str("").unwrap();
        assert_eq!(none, HostOptions::default());
        let given: HostOptions = toml::from_str(
            "api = \"openai\"\nhost = [\"a:1\", \"b:2/v1/\"]\nmax_in_flight = 2\ntimeout = 9.5\nmax_retries = 0\n",
        )
        .unwrap();
        let hosts = given.hosts((None, None), None, &|_| None).unwrap();
        let urls: Vec<&str> = hosts.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["http://a:1", "http://b:2"]);
        assert!(hosts.iter().all(|h| h.max_in_flight == 2 && h.api == Api::Openai));
        assert_eq!((given.timeout().as_secs_f64(), given.retry().max_retries), (9.5, 0));
        let err = toml::from_str::<HostOptions>("api = \"grpc\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown api \"grpc\": expected ollama or openai"), "{err}");
        let any_case: HostOptions = toml::from_str("api = \"OpenAI\"\n").unwrap();
        assert_eq!(any_case.api, Some(Api::Openai));
    }

    /// No host given: an agent file's, else `OLLAMA_HOST`, else Ollama's default.
    #[test]
    fn the_default_host_comes_from_the_agent_file_then_the_environment() {
        let none = HostOptions::default();
        let from_file = none.hosts((Some(Api::Openai), Some("10.0.0.5:8000")), None, &|_| None);
        let from_file = from_file.unwrap();
        assert_eq!(
            (from_file[0].url.as_str(), from_file[0].api),
            ("http://10.0.0.5:8000", Api::Openai)
        );
        let env = |var: &str| (var == "OLLAMA_HOST").then(|| "gpu1:1234".to_string());
        assert_eq!(none.hosts((None, None), None, &env).unwrap()[0].url, "http://gpu1:1234");
        let bad = none.hosts((None, Some("me:pw@h:port")), None, &|_| None).unwrap_err();
        assert_eq!(bad.to_string(), "bad --host \"h:port\" (or OLLAMA_HOST)");
    }

    /// A fleet file's mistakes are named with the file and the fix.
    #[test]
    fn bad_fleet_files_are_refused_naming_the_file() {
        let path = Path::new("f.toml");
        let in_flight = |n: usize| {
            if n == 0 {
                Err("0 is out of range".to_string())
            } else {
                Ok(())
            }
        };
        let message = |text: &str| parse_fleet(text, path, &in_flight).unwrap_err().to_string();
        assert!(message("hosts = []\n").ends_with("it lists no [[hosts]]"));
        assert!(message("[[hosts]]\nurl = \" \"\n").contains("a [[hosts]] url is empty"));
        assert_eq!(
            message("[[hosts]]\nurl = \"h:1\"\nmax_in_flight = 0\n"),
            "bad --fleet f.toml: host h:1: max_in_flight 0 is out of range"
        );
        assert!(message("[[hosts]]\nurl = \"h:1\"\nweight = 3\n").contains("expected [[hosts]] tables with url"));
        let hosts = parse_fleet("[[hosts]]\nurl = \"h:1\"\n", path, &in_flight).unwrap();
        assert_eq!(hosts[0].url, "http://h:1");
    }
}
