//! Exception classes: the part of Java's class hierarchy the simulation knows, and the
//! classes a scenario declares.
//!
//! Resilience4j decides what an exception *is* by its class: `recordExceptions`,
//! `ignoreExceptions` (breaker) and `retryExceptions` / `ignoreExceptions` (retry) each test
//! `configured.isAssignableFrom(thrown.getClass())`, so a listed class covers all its
//! subclasses (`IOException` covers `FileNotFoundException`, `ConnectException`,
//! `SocketTimeoutException`...). The engine has names, not classes, so it needs the
//! hierarchy itself. It comes from two places:
//!
//! - [`CLASSES`], one table for every policy: the exceptions a learner or an engineer will
//!   type from `java.lang` (with `java.lang.reflect`), `java.io`, `java.net` (with
//!   `java.net.http` and `javax.net.ssl`), `java.util`, `java.util.concurrent`, `java.time`,
//!   `java.nio.file` and `java.sql`; Spring's `RestTemplate` exceptions; Resilience4j's own;
//!   and the simulation's two made-up classes: `CardDeclinedException` (the business error
//!   of the labs, an unchecked `RuntimeException`) and `BusinessException`, the example
//!   name of Resilience4j's documentation, a checked `Exception` as in Resilience4j's own
//!   tests (`CircuitBreakerConfigTest`, `CircuitBreakerExceptionHandlingTest`:
//!   `private static class BusinessException extends Exception`).
//! - The scenario's own classes, declared with their parent in the breaker config's
//!   `exceptions` object: `{"PaymentDeclinedException": "RuntimeException"}` (a parent may
//!   be another declared class; the chain must reach a known class). `BusinessException`
//!   may be declared again with another parent; a JDK, Spring or Resilience4j class may not.
//!
//! A name is a simple name (`IOException`, the engine's notation) or a fully qualified one
//! (`java.io.IOException`, as Spring Boot properties write it). A qualified name must name
//! the class the table means: `java.net.IOException` is refused, since no such class exists.
//!
//! Any other name is refused with a clear error rather than guessed (the engine used to
//! take an unknown name for a checked `Exception`, so `FileNotFoundException` escaped an
//! `IOException` rule that Resilience4j applies). One exception to the refusal: in a
//! breaker's `recordExceptions` / `ignoreExceptions`, a *fully qualified* name outside the
//! table (`feign.FeignException`) is taken as a class of your application, as Spring would
//! load it. That needs no guess: every exception the breaker is told about is placed in the
//! hierarchy, and none of their ancestors is that class unless a declared one says so.
//! The retry, whose exceptions are the engine's fixed outcomes, refuses such names: they
//! could never match.

use std::collections::BTreeMap;

use crate::error::excerpt;

/// Where a class in [`CLASSES`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// The JDK (`java.*`, `javax.net.ssl`).
    Jdk,
    /// Spring Framework (`RestTemplate`'s exceptions).
    Spring,
    /// Resilience4j's own exceptions.
    Resilience4j,
    /// The simulation's own class (`CardDeclinedException`); it has no package.
    Simulation,
    /// A made-up example class (`BusinessException`): no package, and a scenario may
    /// declare it again with another parent.
    Example,
}

/// One class of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExceptionClass {
    /// The simple name, the engine's notation (`FileNotFoundException`).
    pub name: &'static str,
    /// The class as `Class.forName` loads it (`java.io.FileNotFoundException`; a nested
    /// class in its binary name, `...HttpClientErrorException$NotFound`). `None` for the
    /// simulation's made-up classes.
    pub qualified_name: Option<&'static str>,
    /// The direct superclass (simple name); `None` only for `Throwable`.
    pub parent: Option<&'static str>,
    pub origin: Origin,
}

macro_rules! class {
    ($origin:ident, $package:literal, $name:ident, $parent:ident) => {
        ExceptionClass {
            name: stringify!($name),
            qualified_name: Some(concat!($package, ".", stringify!($name))),
            parent: Some(stringify!($parent)),
            origin: Origin::$origin,
        }
    };
}

macro_rules! jdk {
    ($package:literal, $name:ident, $parent:ident) => {
        class!(Jdk, $package, $name, $parent)
    };
}

/// Every class the simulation knows, each with its direct superclass (JDK 17 / 21, Spring
/// Framework 6, Resilience4j 2.4). Simple names are unique, every parent is in the table,
/// and every chain ends at `Throwable` (checked by the tests below).
///
/// Left out on purpose: `java.nio.file.AccessDeniedException`, whose simple name a Spring
/// application more often means as Spring Security's `AccessDeniedException` (a
/// `RuntimeException`): declare the one you mean.
pub const CLASSES: &[ExceptionClass] = &[
    ExceptionClass {
        name: "Throwable",
        qualified_name: Some("java.lang.Throwable"),
        parent: None,
        origin: Origin::Jdk,
    },
    // java.lang: the roots.
    jdk!("java.lang", Exception, Throwable),
    jdk!("java.lang", Error, Throwable),
    jdk!("java.lang", RuntimeException, Exception),
    // java.lang: unchecked.
    jdk!("java.lang", ArithmeticException, RuntimeException),
    jdk!("java.lang", ArrayStoreException, RuntimeException),
    jdk!("java.lang", ClassCastException, RuntimeException),
    jdk!(
        "java.lang",
        EnumConstantNotPresentException,
        RuntimeException
    ),
    jdk!("java.lang", IllegalArgumentException, RuntimeException),
    jdk!("java.lang", IllegalCallerException, RuntimeException),
    jdk!("java.lang", IllegalMonitorStateException, RuntimeException),
    jdk!("java.lang", IllegalStateException, RuntimeException),
    jdk!("java.lang", IndexOutOfBoundsException, RuntimeException),
    jdk!(
        "java.lang",
        ArrayIndexOutOfBoundsException,
        IndexOutOfBoundsException
    ),
    jdk!(
        "java.lang",
        StringIndexOutOfBoundsException,
        IndexOutOfBoundsException
    ),
    jdk!("java.lang", NegativeArraySizeException, RuntimeException),
    jdk!("java.lang", NullPointerException, RuntimeException),
    jdk!("java.lang", NumberFormatException, IllegalArgumentException),
    jdk!(
        "java.lang",
        IllegalThreadStateException,
        IllegalArgumentException
    ),
    jdk!("java.lang", SecurityException, RuntimeException),
    jdk!("java.lang", TypeNotPresentException, RuntimeException),
    jdk!("java.lang", UnsupportedOperationException, RuntimeException),
    jdk!(
        "java.lang.reflect",
        UndeclaredThrowableException,
        RuntimeException
    ),
    // java.lang: checked.
    jdk!("java.lang", CloneNotSupportedException, Exception),
    jdk!("java.lang", InterruptedException, Exception),
    jdk!("java.lang", ReflectiveOperationException, Exception),
    jdk!(
        "java.lang",
        ClassNotFoundException,
        ReflectiveOperationException
    ),
    jdk!(
        "java.lang",
        IllegalAccessException,
        ReflectiveOperationException
    ),
    jdk!(
        "java.lang",
        InstantiationException,
        ReflectiveOperationException
    ),
    jdk!(
        "java.lang",
        NoSuchFieldException,
        ReflectiveOperationException
    ),
    jdk!(
        "java.lang",
        NoSuchMethodException,
        ReflectiveOperationException
    ),
    jdk!(
        "java.lang.reflect",
        InvocationTargetException,
        ReflectiveOperationException
    ),
    // java.lang: errors.
    jdk!("java.lang", AssertionError, Error),
    jdk!("java.lang", ThreadDeath, Error),
    jdk!("java.lang", VirtualMachineError, Error),
    jdk!("java.lang", OutOfMemoryError, VirtualMachineError),
    jdk!("java.lang", StackOverflowError, VirtualMachineError),
    jdk!("java.lang", InternalError, VirtualMachineError),
    jdk!("java.lang", UnknownError, VirtualMachineError),
    jdk!("java.lang", LinkageError, Error),
    jdk!("java.lang", BootstrapMethodError, LinkageError),
    jdk!("java.lang", ClassCircularityError, LinkageError),
    jdk!("java.lang", ClassFormatError, LinkageError),
    jdk!("java.lang", UnsupportedClassVersionError, ClassFormatError),
    jdk!("java.lang", ExceptionInInitializerError, LinkageError),
    jdk!("java.lang", IncompatibleClassChangeError, LinkageError),
    jdk!(
        "java.lang",
        AbstractMethodError,
        IncompatibleClassChangeError
    ),
    jdk!(
        "java.lang",
        IllegalAccessError,
        IncompatibleClassChangeError
    ),
    jdk!(
        "java.lang",
        InstantiationError,
        IncompatibleClassChangeError
    ),
    jdk!("java.lang", NoSuchFieldError, IncompatibleClassChangeError),
    jdk!("java.lang", NoSuchMethodError, IncompatibleClassChangeError),
    jdk!("java.lang", NoClassDefFoundError, LinkageError),
    jdk!("java.lang", UnsatisfiedLinkError, LinkageError),
    jdk!("java.lang", VerifyError, LinkageError),
    // java.io
    jdk!("java.io", IOException, Exception),
    jdk!("java.io", CharConversionException, IOException),
    jdk!("java.io", EOFException, IOException),
    jdk!("java.io", FileNotFoundException, IOException),
    jdk!("java.io", InterruptedIOException, IOException),
    jdk!("java.io", SyncFailedException, IOException),
    jdk!("java.io", UnsupportedEncodingException, IOException),
    jdk!("java.io", UTFDataFormatException, IOException),
    jdk!("java.io", ObjectStreamException, IOException),
    jdk!("java.io", InvalidClassException, ObjectStreamException),
    jdk!("java.io", InvalidObjectException, ObjectStreamException),
    jdk!("java.io", NotActiveException, ObjectStreamException),
    jdk!("java.io", NotSerializableException, ObjectStreamException),
    jdk!("java.io", OptionalDataException, ObjectStreamException),
    jdk!("java.io", StreamCorruptedException, ObjectStreamException),
    jdk!("java.io", WriteAbortedException, ObjectStreamException),
    jdk!("java.io", UncheckedIOException, RuntimeException),
    jdk!("java.io", IOError, Error),
    // java.net, java.net.http, javax.net.ssl
    jdk!("java.net", SocketException, IOException),
    jdk!("java.net", BindException, SocketException),
    jdk!("java.net", ConnectException, SocketException),
    jdk!("java.net", NoRouteToHostException, SocketException),
    jdk!("java.net", PortUnreachableException, SocketException),
    jdk!("java.net", SocketTimeoutException, InterruptedIOException),
    jdk!("java.net", UnknownHostException, IOException),
    jdk!("java.net", UnknownServiceException, IOException),
    jdk!("java.net", MalformedURLException, IOException),
    jdk!("java.net", ProtocolException, IOException),
    jdk!("java.net", HttpRetryException, IOException),
    jdk!("java.net", URISyntaxException, Exception),
    jdk!("java.net.http", HttpTimeoutException, IOException),
    jdk!(
        "java.net.http",
        HttpConnectTimeoutException,
        HttpTimeoutException
    ),
    jdk!("javax.net.ssl", SSLException, IOException),
    jdk!("javax.net.ssl", SSLHandshakeException, SSLException),
    jdk!("javax.net.ssl", SSLKeyException, SSLException),
    jdk!("javax.net.ssl", SSLPeerUnverifiedException, SSLException),
    jdk!("javax.net.ssl", SSLProtocolException, SSLException),
    // java.util
    jdk!(
        "java.util",
        ConcurrentModificationException,
        RuntimeException
    ),
    jdk!("java.util", EmptyStackException, RuntimeException),
    jdk!(
        "java.util",
        IllegalFormatException,
        IllegalArgumentException
    ),
    jdk!("java.util", IllformedLocaleException, RuntimeException),
    jdk!("java.util", MissingResourceException, RuntimeException),
    jdk!("java.util", NoSuchElementException, RuntimeException),
    jdk!("java.util", InputMismatchException, NoSuchElementException),
    // java.util.concurrent
    jdk!("java.util.concurrent", BrokenBarrierException, Exception),
    jdk!(
        "java.util.concurrent",
        CancellationException,
        IllegalStateException
    ),
    jdk!(
        "java.util.concurrent",
        CompletionException,
        RuntimeException
    ),
    jdk!("java.util.concurrent", ExecutionException, Exception),
    jdk!(
        "java.util.concurrent",
        RejectedExecutionException,
        RuntimeException
    ),
    jdk!("java.util.concurrent", TimeoutException, Exception),
    // java.time
    jdk!("java.time", DateTimeException, RuntimeException),
    jdk!(
        "java.time.format",
        DateTimeParseException,
        DateTimeException
    ),
    jdk!(
        "java.time.temporal",
        UnsupportedTemporalTypeException,
        DateTimeException
    ),
    jdk!("java.time.zone", ZoneRulesException, DateTimeException),
    // java.nio.file
    jdk!("java.nio.file", FileSystemException, IOException),
    jdk!(
        "java.nio.file",
        DirectoryNotEmptyException,
        FileSystemException
    ),
    jdk!(
        "java.nio.file",
        FileAlreadyExistsException,
        FileSystemException
    ),
    jdk!("java.nio.file", NoSuchFileException, FileSystemException),
    jdk!("java.nio.file", NotDirectoryException, FileSystemException),
    // java.sql
    jdk!("java.sql", SQLException, Exception),
    jdk!("java.sql", BatchUpdateException, SQLException),
    jdk!("java.sql", SQLClientInfoException, SQLException),
    jdk!("java.sql", SQLRecoverableException, SQLException),
    jdk!("java.sql", SQLWarning, SQLException),
    jdk!("java.sql", DataTruncation, SQLWarning),
    jdk!("java.sql", SQLTransientException, SQLException),
    jdk!("java.sql", SQLTimeoutException, SQLTransientException),
    jdk!(
        "java.sql",
        SQLTransactionRollbackException,
        SQLTransientException
    ),
    jdk!(
        "java.sql",
        SQLTransientConnectionException,
        SQLTransientException
    ),
    jdk!("java.sql", SQLNonTransientException, SQLException),
    jdk!("java.sql", SQLDataException, SQLNonTransientException),
    jdk!(
        "java.sql",
        SQLFeatureNotSupportedException,
        SQLNonTransientException
    ),
    jdk!(
        "java.sql",
        SQLIntegrityConstraintViolationException,
        SQLNonTransientException
    ),
    jdk!(
        "java.sql",
        SQLInvalidAuthorizationSpecException,
        SQLNonTransientException
    ),
    jdk!(
        "java.sql",
        SQLNonTransientConnectionException,
        SQLNonTransientException
    ),
    jdk!(
        "java.sql",
        SQLSyntaxErrorException,
        SQLNonTransientException
    ),
    // Spring Framework: RestTemplate.
    class!(
        Spring,
        "org.springframework.core",
        NestedRuntimeException,
        RuntimeException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        RestClientException,
        NestedRuntimeException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        ResourceAccessException,
        RestClientException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        RestClientResponseException,
        RestClientException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        UnknownHttpStatusCodeException,
        RestClientResponseException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        HttpStatusCodeException,
        RestClientResponseException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        HttpClientErrorException,
        HttpStatusCodeException
    ),
    class!(
        Spring,
        "org.springframework.web.client",
        HttpServerErrorException,
        HttpStatusCodeException
    ),
    // The sandbox's 404: RestTemplate's nested class, in its binary name.
    ExceptionClass {
        name: "NotFoundException",
        qualified_name: Some("org.springframework.web.client.HttpClientErrorException$NotFound"),
        parent: Some("HttpClientErrorException"),
        origin: Origin::Spring,
    },
    // Resilience4j.
    class!(
        Resilience4j,
        "io.github.resilience4j.circuitbreaker",
        CallNotPermittedException,
        RuntimeException
    ),
    class!(
        Resilience4j,
        "io.github.resilience4j.bulkhead",
        BulkheadFullException,
        RuntimeException
    ),
    class!(
        Resilience4j,
        "io.github.resilience4j.ratelimiter",
        RequestNotPermitted,
        RuntimeException
    ),
    class!(
        Resilience4j,
        "io.github.resilience4j.retry",
        MaxRetriesExceededException,
        RuntimeException
    ),
    // The simulation's made-up classes.
    ExceptionClass {
        name: "CardDeclinedException",
        qualified_name: None,
        parent: Some("RuntimeException"),
        origin: Origin::Simulation,
    },
    ExceptionClass {
        name: "BusinessException",
        qualified_name: None,
        parent: Some("Exception"),
        origin: Origin::Example,
    },
];

/// The most classes a config may declare (each check walks the declared chains).
pub const MAX_DECLARED: usize = 256;

/// Longest chain walked from a class to `Throwable` (the table's deepest is 7).
const MAX_DEPTH: usize = MAX_DECLARED + 16;

/// The most names one list (`recordExceptions`, `retryExceptions`...) may hold: each
/// classification compares the thrown class's superclasses with every name listed.
pub const MAX_LISTED: usize = 256;

/// The longest class name read, in characters (real ones are far shorter): every
/// lookup compares names, so a long one would make each of them long.
pub const MAX_NAME_LENGTH: usize = 256;

/// Classes a scenario declares: class name -> parent name.
pub type DeclaredExceptions = BTreeMap<String, String>;

static NO_DECLARATIONS: DeclaredExceptions = BTreeMap::new();

/// The class of the table with this simple name.
pub fn known(simple_name: &str) -> Option<&'static ExceptionClass> {
    CLASSES.iter().find(|c| c.name == simple_name)
}

/// The class of the table with this fully qualified name (`$` or `.` before a nested
/// class's name alike).
pub fn by_qualified_name(name: &str) -> Option<&'static ExceptionClass> {
    let name = name.trim();
    CLASSES
        .iter()
        .find(|c| c.qualified_name.is_some_and(|q| same_binary_name(q, name)))
}

/// The fully qualified name of the table's class `simple_name` (for a Spring Boot
/// property or a Java import), `None` for an unknown or a made-up class.
pub fn qualified_name(simple_name: &str) -> Option<&'static str> {
    known(simple_name).and_then(|c| c.qualified_name)
}

fn same_binary_name(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .all(|(x, y)| x == y || (matches!(x, b'$' | b'.') && matches!(y, b'$' | b'.')))
}

/// `java.io.IOException` -> `IOException` (the name after the last `.` or `$`).
pub fn simple_name(name: &str) -> &str {
    let name = name.trim();
    name.rsplit(['.', '$']).next().unwrap_or(name)
}

fn is_qualified(name: &str) -> bool {
    name.contains(['.', '$'])
}

/// The names of `simple_name` and of all its superclasses in the table, most specific
/// first (empty for a name the table does not know).
pub fn ancestry(simple_name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut current = known(simple_name);
    while let Some(class) = current {
        out.push(class.name);
        current = class.parent.and_then(known);
    }
    out
}

/// Where a name leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resolved<'a> {
    /// A class of the table.
    Known(&'static ExceptionClass),
    /// A declared class: its simple name and its parent as written.
    Declared(&'a str, &'a str),
    /// A qualified name outside the table, not declared.
    Application,
    /// A qualified name whose simple name is the table's class, in another package.
    WrongPackage(&'static ExceptionClass),
    Unknown,
    Empty,
    /// Longer than [`MAX_NAME_LENGTH`].
    TooLong,
}

/// The hierarchy a policy classifies with: the table and a config's declared classes.
#[derive(Debug, Clone, Copy)]
pub struct Hierarchy<'a> {
    declared: &'a DeclaredExceptions,
}

impl Hierarchy<'static> {
    /// The table alone (the retry, and anything without declarations).
    pub fn table() -> Self {
        Hierarchy {
            declared: &NO_DECLARATIONS,
        }
    }
}

impl<'a> Hierarchy<'a> {
    /// The table and the classes `declared` (class -> parent) adds.
    pub fn with(declared: &'a DeclaredExceptions) -> Self {
        Hierarchy { declared }
    }

    /// The declared class whose simple name is `simple`, with its parent as written.
    fn declared(&self, simple: &str) -> Option<(&'a str, &'a str)> {
        if self.declared.is_empty() {
            return None;
        }
        // Declared by its simple name, as most are.
        if let Some((name, parent)) = self.declared.get_key_value(simple) {
            return Some((name.as_str(), parent.as_str()));
        }
        // `simple_name(name) == simple`, without scanning each whole name.
        let ends_with_simple = |name: &str| {
            let name = name.trim();
            name.strip_suffix(simple)
                .is_some_and(|rest| rest.is_empty() || rest.ends_with(['.', '$']))
        };
        self.declared
            .iter()
            .find(|(name, _)| ends_with_simple(name))
            .map(|(name, parent)| (simple_name(name), parent.as_str()))
    }

    fn resolve(&self, name: &str) -> Resolved<'a> {
        let name = name.trim();
        if name.is_empty() {
            return Resolved::Empty;
        }
        if name.chars().count() > MAX_NAME_LENGTH {
            return Resolved::TooLong;
        }
        let qualified = is_qualified(name);
        if qualified {
            if let Some(class) = by_qualified_name(name) {
                if let Some((declared, parent)) = self.declared(class.name) {
                    return Resolved::Declared(declared, parent);
                }
                return Resolved::Known(class);
            }
        }
        let simple = simple_name(name);
        if let Some((declared, parent)) = self.declared(simple) {
            return Resolved::Declared(declared, parent);
        }
        match known(simple) {
            Some(class) if qualified && class.qualified_name.is_some() => {
                Resolved::WrongPackage(class)
            }
            Some(class) => Resolved::Known(class),
            None if qualified => Resolved::Application,
            None => Resolved::Unknown,
        }
    }

    /// The simple name a name stands for (a known qualified name gives the table's name,
    /// so `...HttpClientErrorException$NotFound` is `NotFoundException`).
    pub fn identity<'n>(&self, name: &'n str) -> &'n str {
        let name = name.trim();
        if is_qualified(name) {
            if let Some(class) = by_qualified_name(name) {
                return class.name;
            }
        }
        simple_name(name)
    }

    /// The direct superclass of the class whose simple name is `simple`: a declared class's
    /// parent first (it may redeclare `BusinessException`), else the table's.
    fn parent_of(&self, simple: &str) -> Option<&'a str> {
        if let Some((_, parent)) = self.declared(simple) {
            return Some(self.identity(parent));
        }
        known(simple).and_then(|c| c.parent)
    }

    /// Resilience4j's `configured.isAssignableFrom(thrown)` on names: is `thrown` the class
    /// `configured` or one of its subclasses? A thrown name the hierarchy does not know
    /// (only a caller that skipped [`Self::check_thrown`] can pass one) is taken to be
    /// nothing but a `Throwable`: it matches its own name and `Throwable`.
    pub fn is_assignable(&self, configured: &str, thrown: &str) -> bool {
        let target = self.identity(configured);
        let mut current = self.identity(thrown);
        for _ in 0..MAX_DEPTH {
            if current == target {
                return true;
            }
            match self.parent_of(current) {
                Some(parent) => current = parent,
                None => break,
            }
        }
        target == "Throwable"
    }

    /// Whether any of `configured` matches `thrown` (see [`Self::is_assignable`]).
    pub fn any_assignable(&self, configured: &[String], thrown: &str) -> bool {
        match configured {
            [] => false,
            [one] => self.is_assignable(one, thrown),
            // The thrown class's superclasses walked once, not once per name listed.
            many => {
                let lineage = self.lineage(thrown);
                many.iter().any(|c| {
                    let target = self.identity(c);
                    target == "Throwable" || lineage.contains(&target)
                })
            }
        }
    }

    /// `thrown` and its superclasses, most specific first, as [`Self::is_assignable`]
    /// walks them.
    fn lineage<'n>(&self, thrown: &'n str) -> Vec<&'n str>
    where
        'a: 'n,
    {
        let mut out = vec![self.identity(thrown)];
        while out.len() < MAX_DEPTH {
            match self.parent_of(out[out.len() - 1]) {
                Some(parent) => out.push(parent),
                None => break,
            }
        }
        out
    }

    /// Checks a whole list (see [`Self::check_listed`]): at most [`MAX_LISTED`] names.
    /// On a refusal, the index of the name refused (none when the list is too long).
    pub fn check_list(
        &self,
        names: &[String],
        allow_application: bool,
    ) -> Result<(), (Option<usize>, String)> {
        if names.len() > MAX_LISTED {
            return Err((
                None,
                format!("lists {} classes: at most {MAX_LISTED}", names.len()),
            ));
        }
        for (index, name) in names.iter().enumerate() {
            self.check_listed(name, allow_application)
                .map_err(|message| (Some(index), message))?;
        }
        Ok(())
    }

    /// Checks a name a policy's list gives (`recordExceptions`...): it must be known or
    /// declared, or (with `allow_application`) a fully qualified class outside the table.
    pub fn check_listed(&self, name: &str, allow_application: bool) -> Result<(), String> {
        match self.resolve(name) {
            Resolved::Known(_) | Resolved::Declared(..) => Ok(()),
            Resolved::Application if allow_application => Ok(()),
            other => Err(self.refusal(name, other, allow_application)),
        }
    }

    /// Whether `name` is a class the simulation knows or the config declares, without the
    /// refusal's message (and its "did you mean" search), which a caller that only asks
    /// often throws away.
    pub fn knows(&self, name: &str) -> bool {
        matches!(
            self.resolve(name),
            Resolved::Known(_) | Resolved::Declared(..)
        )
    }

    /// Checks the name of an exception a call throws: it must be known or declared, since
    /// its superclasses decide how it is classified.
    pub fn check_thrown(&self, name: &str) -> Result<(), String> {
        match self.resolve(name) {
            Resolved::Known(_) | Resolved::Declared(..) => Ok(()),
            other => Err(self.refusal(name, other, true)),
        }
    }

    /// Why `name` is refused; `declarable`: the policy reads declared classes (the
    /// breaker), so the message says how to declare one.
    fn refusal(&self, name: &str, resolved: Resolved<'_>, declarable: bool) -> String {
        let shown = excerpt(name.trim());
        match resolved {
            Resolved::Empty => "an exception name is empty".to_string(),
            Resolved::TooLong => {
                format!("`{shown}` is longer than {MAX_NAME_LENGTH} characters: not a class name")
            }
            Resolved::WrongPackage(class) => format!(
                "`{shown}` is not an exception this simulation knows: its {} is {}",
                class.name,
                class.qualified_name.unwrap_or(class.name)
            ),
            _ => {
                let simple = simple_name(name);
                let hint = closest(simple)
                    .map(|name| format!(" (did you mean {name}?)"))
                    .unwrap_or_default();
                // Short enough for a page's one-line message (300 characters) with a
                // 40-character name quoted.
                let known = "a JDK, Spring RestTemplate or Resilience4j exception";
                if declarable {
                    format!(
                        "`{shown}` is not an exception this simulation knows{hint}: name {known}, \
                         or declare it in the breaker's \"exceptions\": {{\"{}\": \"RuntimeException\"}}",
                        excerpt(simple)
                    )
                } else {
                    format!(
                        "`{shown}` is not an exception this simulation knows{hint}: name {known}"
                    )
                }
            }
        }
    }

    /// Checks the declarations: at most [`MAX_DECLARED`], each a Java class name not
    /// already in the table (`BusinessException` excepted) and declared once, each parent
    /// known or declared, and no cycle.
    pub fn check_declarations(&self) -> Result<(), String> {
        if self.declared.len() > MAX_DECLARED {
            return Err(format!(
                "declares {} classes: at most {MAX_DECLARED}",
                self.declared.len()
            ));
        }
        // Classes whose chain is known to reach the table: each chain is walked only up to
        // one of them, so the check is quadratic at worst, not cubic.
        let mut reach_table: Vec<&str> = Vec::new();
        for (index, (name, parent)) in self.declared.iter().enumerate() {
            let shown = excerpt(name.trim());
            if name.trim().chars().count() > MAX_NAME_LENGTH {
                return Err(format!(
                    "`{shown}` is longer than {MAX_NAME_LENGTH} characters: not a class name"
                ));
            }
            if !is_class_name(name) {
                return Err(format!("`{shown}` is not a Java class name"));
            }
            let simple = simple_name(name);
            let table = by_qualified_name(name).or_else(|| known(simple));
            if let Some(class) = table.filter(|c| c.origin != Origin::Example) {
                return Err(format!(
                    "`{shown}` is already known ({} extends {}): it cannot be declared again",
                    class.qualified_name.unwrap_or(class.name),
                    class.parent.unwrap_or("nothing")
                ));
            }
            if self
                .declared
                .keys()
                .skip(index + 1)
                .any(|other| simple_name(other) == simple)
            {
                return Err(format!("`{}` is declared twice", excerpt(simple)));
            }
            if let Err(e) = self.check_thrown(parent) {
                return Err(format!("the parent of `{shown}`: {e}"));
            }
            // The chain up from here must reach the table (a known class) without a cycle.
            let start = reach_table.len();
            let mut current = simple;
            while let Some((_, parent)) = self.declared(current) {
                if reach_table[..start].contains(&current) {
                    break;
                }
                reach_table.push(current);
                current = self.identity(parent);
                if current == simple || reach_table.len() - start > self.declared.len() {
                    return Err(format!(
                        "`{shown}` is its own superclass (the parents form a cycle)"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Answers about thrown exceptions, remembered by the class a name stands for
/// ([`Hierarchy::identity`]): a script may throw the same classes a hundred thousand times
/// (spelt many ways: `a.Late`, `b.Late`), and each answer walks the class's superclasses
/// through the declared ones. It keeps at most one answer per class a config can name.
#[derive(Debug, Clone)]
pub struct ByClass<T> {
    /// A few hundred at most, looked up only when an answer is not at hand elsewhere: a
    /// list, not a map (a map's code would be in every page that has a breaker).
    answers: Vec<(String, T)>,
}

impl<T> Default for ByClass<T> {
    fn default() -> Self {
        ByClass {
            answers: Vec::new(),
        }
    }
}

impl<T: Copy> ByClass<T> {
    /// The answer for `thrown`'s class, from `answer` the first time.
    pub fn get_or(
        &mut self,
        hierarchy: &Hierarchy<'_>,
        thrown: &str,
        answer: impl FnOnce() -> T,
    ) -> T {
        let class = hierarchy.identity(thrown);
        if let Some(&(_, known)) = self.answers.iter().find(|(c, _)| c == class) {
            return known;
        }
        let answer = answer();
        if self.answers.len() < MAX_DECLARED + CLASSES.len() {
            self.answers.push((class.to_string(), answer));
        }
        answer
    }
}

/// The table's name closest to `name`, if it is close: the same but for letter case, or a
/// letter or so away (`FileNotFoundExeption`).
fn closest(name: &str) -> Option<&'static str> {
    let lower = lowercase_against_ascii(name);
    let length = lower.chars().count();
    if length > 64 {
        return None;
    }
    // A letter per ten: `IOExeption` is near `IOException`, `MyException` not near
    // `Exception`.
    let near = (length / 10).max(1);
    CLASSES
        .iter()
        // The distance is at least the difference in length: most names are never compared.
        .filter(|c| c.name.len().abs_diff(length) <= near)
        .filter_map(|c| {
            edit_distance_within(&lower, &c.name.to_ascii_lowercase(), near).map(|d| (d, c.name))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// `name.to_lowercase()` as far as a comparison with the table's names (ASCII) can tell,
/// without the Unicode case tables (about 15 KB of wasm): the same number of characters,
/// and the same ASCII ones. ASCII letters are lowercased, the Kelvin sign is `k` and `İ` is
/// `i` and a combining dot, as `to_lowercase` has them; any other character's lowercase is
/// one character outside ASCII, which matches no letter of the table, so the character is
/// kept as it is.
fn lowercase_against_ascii(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '\u{212a}' => out.push('k'),
            '\u{130}' => out.push_str("i\u{307}"),
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// Levenshtein distance, in characters, if it is at most `max`. Only the cells within
/// `max` of the diagonal are computed, and the search stops once a whole row is over
/// `max`: a "did you mean" hint asks for a distance of a few letters, and a long name
/// unlike any other costs a few rows, not its length squared.
pub fn edit_distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    if a.chars().count().abs_diff(b.chars().count()) > max {
        return None;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let over = max.saturating_add(1);
    // Row i - 1 of the table; a cell outside the band holds `over`.
    let mut row: Vec<usize> = (0..=b.len()).map(|j| j.min(over)).collect();
    for (i, ca) in (1usize..).zip(&a) {
        let first = i.saturating_sub(max).max(1);
        let last = i.saturating_add(max).min(b.len());
        let mut diagonal = row[first - 1];
        row[first - 1] = if first == 1 { i.min(over) } else { over };
        let mut smallest = row[first - 1];
        for j in first..=last {
            let substitution = diagonal + usize::from(*ca != b[j - 1]);
            diagonal = row[j];
            row[j] = substitution.min(row[j - 1] + 1).min(row[j] + 1).min(over);
            smallest = smallest.min(row[j]);
        }
        if smallest > max {
            return None;
        }
    }
    Some(row[b.len()]).filter(|d| *d <= max)
}

/// A Java class name: identifiers separated by `.` (`$` allowed, as Java allows it).
fn is_class_name(name: &str) -> bool {
    let name = name.trim();
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole table, every cell: what the banded search must agree with.
    fn full_edit_distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let substitution = diagonal + usize::from(ca != *cb);
                diagonal = row[j + 1];
                row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
            }
        }
        row[b.len()]
    }

    #[test]
    fn the_banded_distance_is_the_distance_when_within_its_bound() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        let word = |rng: &mut rand_pcg::Pcg64Mcg| -> String {
            let n = rng.random_range(0..14);
            (0..n)
                .map(|_| ['a', 'b', 'c', 'é'][rng.random_range(0..4)])
                .collect()
        };
        for _ in 0..20_000 {
            let (a, b) = (word(&mut rng), word(&mut rng));
            let full = full_edit_distance(&a, &b);
            for max in [0, 1, 2, 3, 5, 20, usize::MAX] {
                let expected = (full <= max).then_some(full);
                assert_eq!(
                    edit_distance_within(&a, &b, max),
                    expected,
                    "{a:?} {b:?} {max}"
                );
            }
        }
        assert_eq!(
            edit_distance_within("IOExeption", "IOException", 1),
            Some(1)
        );
        assert_eq!(edit_distance_within("kitten", "sitting", 3), Some(3));
        assert_eq!(edit_distance_within("kitten", "sitting", 2), None);
    }

    fn declared(pairs: &[(&str, &str)]) -> DeclaredExceptions {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn the_table_is_one_tree() {
        for (i, class) in CLASSES.iter().enumerate() {
            assert!(
                CLASSES[i + 1..].iter().all(|c| c.name != class.name),
                "{} twice",
                class.name
            );
            let chain = ancestry(class.name);
            assert_eq!(chain.last(), Some(&"Throwable"), "{}", class.name);
            assert!(chain.len() <= 10, "{}", class.name);
            if let Some(q) = class.qualified_name {
                assert!(q.ends_with(class.name) || class.name == "NotFoundException");
                assert_eq!(by_qualified_name(q), Some(class));
            }
        }
    }

    /// The JDK names the issue lists, with their places in java's hierarchy.
    #[test]
    fn jdk_classes_sit_where_the_jdk_puts_them() {
        let h = Hierarchy::table();
        for (sub, sup) in [
            ("FileNotFoundException", "IOException"),
            ("EOFException", "IOException"),
            ("ArithmeticException", "RuntimeException"),
            ("ClassCastException", "RuntimeException"),
            ("UnsupportedOperationException", "RuntimeException"),
            ("CancellationException", "IllegalStateException"),
            ("SocketTimeoutException", "InterruptedIOException"),
            ("SQLTimeoutException", "SQLTransientException"),
            ("DateTimeParseException", "DateTimeException"),
            ("BusinessException", "Exception"),
            ("OutOfMemoryError", "Error"),
        ] {
            assert!(h.is_assignable(sup, sub), "{sub} < {sup}");
            assert!(!h.is_assignable(sub, sup), "{sup} !< {sub}");
        }
        assert!(!h.is_assignable("RuntimeException", "BusinessException"));
        assert!(!h.is_assignable("Exception", "OutOfMemoryError"));
        assert!(h.is_assignable("Throwable", "OutOfMemoryError"));
        assert!(h.is_assignable("java.io.IOException", "java.io.EOFException"));
        assert!(h.is_assignable(
            "HttpClientErrorException",
            "org.springframework.web.client.HttpClientErrorException.NotFound"
        ));
    }

    #[test]
    fn declared_classes_extend_the_table() {
        let d = declared(&[
            ("PaymentDeclinedException", "PaymentException"),
            ("com.acme.PaymentException", "RuntimeException"),
            ("BusinessException", "RuntimeException"),
        ]);
        let h = Hierarchy::with(&d);
        assert_eq!(h.check_declarations(), Ok(()));
        assert!(h.is_assignable("RuntimeException", "PaymentDeclinedException"));
        assert!(h.is_assignable("com.acme.PaymentException", "PaymentDeclinedException"));
        assert!(!h.is_assignable("PaymentDeclinedException", "PaymentException"));
        assert!(h.is_assignable("RuntimeException", "BusinessException"));
        assert_eq!(h.check_thrown("PaymentDeclinedException"), Ok(()));
    }

    #[test]
    fn names_are_lowercased_as_to_lowercase_does_for_the_table() {
        assert!(CLASSES.iter().all(|c| c.name.is_ascii()));
        // Every character: as many characters as its lowercase, ASCII where it is, and the
        // same ASCII character.
        let same = |ours: &str, theirs: &str| {
            ours.chars().count() == theirs.chars().count()
                && ours
                    .chars()
                    .zip(theirs.chars())
                    .all(|(a, b)| a == b || !a.is_ascii() && !b.is_ascii())
        };
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let text = c.to_string();
            let (ours, theirs) = (lowercase_against_ascii(&text), text.to_lowercase());
            assert!(same(&ours, &theirs), "{c:?}: {ours:?} {theirs:?}");
        }
        // Strings (a final sigma lowercases by its context), and what `closest` finds.
        for name in [
            "FileNotFoundExeption",
            "ioexception",
            "BUL\u{212a}HEADFULLEXCEPTION",
            "\u{130}OException",
            "ΣΑΣ",
            "Σ",
            "aΣ.b",
            "ÉtatException",
            "RuntimeExceptiön",
            "",
        ] {
            let (ours, theirs) = (lowercase_against_ascii(name), name.to_lowercase());
            assert!(same(&ours, &theirs), "{name}: {ours:?} {theirs:?}");
            let by_unicode = CLASSES
                .iter()
                .filter_map(|c| {
                    edit_distance_within(&theirs, &c.name.to_lowercase(), usize::MAX)
                        .map(|d| (d, c.name))
                })
                .min_by_key(|(distance, _)| *distance);
            let by_ours = CLASSES
                .iter()
                .filter_map(|c| {
                    edit_distance_within(&ours, &c.name.to_ascii_lowercase(), usize::MAX)
                        .map(|d| (d, c.name))
                })
                .min_by_key(|(distance, _)| *distance);
            assert_eq!(by_ours, by_unicode, "{name}");
        }
        assert_eq!(
            closest("BUL\u{212a}HEADFULLEXCEPTION"),
            Some("BulkheadFullException")
        );
        assert_eq!(closest("\u{130}OException"), Some("IOException"));
    }

    /// The longest chain a config may declare, of the longest names, each class
    /// extending the one before: read and classified like a short one.
    #[test]
    fn the_deepest_declared_chain_of_the_longest_names_is_read() {
        let name = |i: usize| format!("c{i:03}{}", "x".repeat(MAX_NAME_LENGTH - 4));
        let mut d = DeclaredExceptions::new();
        d.insert(name(0), "RuntimeException".to_string());
        for i in 1..MAX_DECLARED {
            d.insert(name(i), name(i - 1));
        }
        let h = Hierarchy::with(&d);
        assert_eq!(h.check_declarations(), Ok(()));
        let deepest = name(MAX_DECLARED - 1);
        assert_eq!(h.check_thrown(&deepest), Ok(()));
        for configured in [
            name(0),
            name(100),
            deepest.clone(),
            "RuntimeException".into(),
        ] {
            assert!(h.is_assignable(&configured, &deepest), "{configured}");
        }
        assert!(!h.is_assignable(&deepest, &name(0)));
        assert!(!h.is_assignable("IOException", &deepest));
        // A whole list, walked once, says what each name says alone.
        let listed: Vec<String> = (0..MAX_LISTED).map(|i| name(i % MAX_DECLARED)).collect();
        assert_eq!(h.check_list(&listed, true), Ok(()));
        assert!(h.any_assignable(&listed[100..], &name(200)));
        assert!(!h.any_assignable(&listed[201..MAX_DECLARED], &name(200)));
        // One longer, or one more in a list, is refused.
        let long = "y".repeat(MAX_NAME_LENGTH + 1);
        let e = Hierarchy::with(&declared(&[(&long, "Exception")]))
            .check_declarations()
            .unwrap_err();
        assert!(
            e.contains(&format!("longer than {MAX_NAME_LENGTH} characters")),
            "{e}"
        );
        assert!(h.check_thrown(&long).unwrap_err().contains("longer than"));
        let mut too_many = listed.clone();
        too_many.push("IOException".into());
        let (index, e) = h.check_list(&too_many, true).unwrap_err();
        assert_eq!(index, None);
        assert!(e.contains(&format!("at most {MAX_LISTED}")), "{e}");
    }

    /// `any_assignable` walks the thrown class's superclasses once; it must answer as
    /// asking each listed name in turn does, for every class of the table.
    #[test]
    fn a_list_answers_as_its_names_do_one_by_one() {
        let d = declared(&[
            ("com.shop.OutOfStock", "BusinessException"),
            ("Late", "com.shop.OutOfStock"),
        ]);
        let h = Hierarchy::with(&d);
        let names: Vec<String> = CLASSES
            .iter()
            .map(|c| c.name.to_string())
            .chain(
                [
                    "OutOfStock",
                    "com.shop.OutOfStock",
                    "Late",
                    "java.io.IOException",
                ]
                .map(String::from),
            )
            .collect();
        for thrown in &names {
            for list in names.chunks(3).chain(names.windows(2).step_by(5)) {
                let one_by_one = list.iter().any(|c| h.is_assignable(c, thrown));
                assert_eq!(
                    h.any_assignable(list, thrown),
                    one_by_one,
                    "{thrown} in {list:?}"
                );
            }
        }
    }

    /// An answer is worked out once per class, however the class is spelt.
    #[test]
    fn answers_are_remembered_by_class() {
        let d = declared(&[("com.shop.Late", "TimeoutException")]);
        let h = Hierarchy::with(&d);
        let mut by_class = ByClass::default();
        let mut worked_out = 0;
        for thrown in [
            "Late",
            "com.shop.Late",
            "org.other.Late",
            " Late ",
            "IOException",
            "java.io.IOException",
            "Late",
        ] {
            let is_timeout = by_class.get_or(&h, thrown, || {
                worked_out += 1;
                h.is_assignable("TimeoutException", thrown)
            });
            assert_eq!(
                is_timeout,
                h.is_assignable("TimeoutException", thrown),
                "{thrown}"
            );
        }
        assert_eq!(worked_out, 2, "once for Late, once for IOException");
    }

    #[test]
    fn bad_declarations_and_unknown_names_are_refused() {
        for (pairs, words) in [
            (vec![("IOException", "RuntimeException")], "already known"),
            (vec![("java.io.IOException", "Exception")], "already known"),
            (vec![("A", "B"), ("B", "A")], "cycle"),
            (vec![("A", "A")], "cycle"),
            (vec![("A", "Nowhere")], "the parent of `A`"),
            (vec![("a b", "Exception")], "not a Java class name"),
            (
                vec![("x.A", "Exception"), ("y.A", "Exception")],
                "declared twice",
            ),
        ] {
            let d = declared(&pairs);
            let e = Hierarchy::with(&d).check_declarations().unwrap_err();
            assert!(e.contains(words), "{pairs:?}: {e}");
        }
        let h = Hierarchy::table();
        assert!(h
            .check_thrown("MyException")
            .unwrap_err()
            .contains("not an exception this simulation knows"));
        assert!(h
            .check_thrown("ioexception")
            .unwrap_err()
            .contains("did you mean IOException?"));
        assert!(h
            .check_thrown("FileNotFoundExeption")
            .unwrap_err()
            .contains("did you mean FileNotFoundException?"));
        assert!(!h
            .check_thrown("MyException")
            .unwrap_err()
            .contains("did you mean"));
        assert!(h
            .check_thrown("java.net.IOException")
            .unwrap_err()
            .contains("java.io.IOException"));
        assert!(h.check_thrown("feign.FeignException").is_err());
        assert_eq!(h.check_listed("feign.FeignException", true), Ok(()));
        assert!(h.check_listed("feign.FeignException", false).is_err());
        assert!(h.check_listed("FeignException", true).is_err());
        assert_eq!(
            h.check_listed("com.example.shop.CardDeclinedException", false),
            Ok(())
        );
        assert_eq!(
            h.check_listed(" ", true),
            Err("an exception name is empty".into())
        );
    }
}
