//! A small XML element tree, its canonical forms (inclusive C14N 1.0 and
//! exclusive C14N 1.0, both without comments) and its plain serialization.
//!
//! Hand-written for SAT's fixed SOAP templates, not a general implementation.
//! Limits: no DTD (refused), comments and processing instructions are dropped,
//! only the five predefined entities and character references are resolved,
//! `xml:*` attributes are not inherited by the apex of an inclusive subset, the
//! exclusive `InclusiveNamespaces PrefixList` is not supported, and the document
//! subset is always a whole element subtree (optionally minus one element).

use std::collections::BTreeMap;

use quick_xml::XmlVersion;
use quick_xml::events::Event;

use crate::Error;

/// Which canonicalization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum C14n {
    /// Exclusive XML Canonicalization 1.0 without comments
    /// (`http://www.w3.org/2001/10/xml-exc-c14n#`).
    Exclusive,
    /// Canonical XML 1.0 without comments
    /// (`http://www.w3.org/TR/2001/REC-xml-c14n-20010315`).
    Inclusive,
}

/// Namespace bindings in scope: prefix (`""` for the default) to URI.
pub(crate) type Scope = BTreeMap<String, String>;

/// An attribute; `prefix` is `None` for an unqualified name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attribute {
    pub prefix: Option<String>,
    pub local: String,
    pub value: String,
}

/// Element content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Element(Element),
    Text(String),
}

/// An element with its namespace declarations kept apart from its attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Element {
    pub prefix: Option<String>,
    pub local: String,
    /// Declarations made on this element: (prefix or `""`, URI).
    pub namespaces: Vec<(String, String)>,
    pub attributes: Vec<Attribute>,
    pub children: Vec<Node>,
}

impl Element {
    /// `prefix:local` or `local`.
    pub fn new(qualified_name: &str) -> Self {
        let (prefix, local) = split_name(qualified_name);
        Element { prefix, local, namespaces: Vec::new(), attributes: Vec::new(), children: Vec::new() }
    }

    /// Declares a namespace (`""` prefix for the default one).
    pub fn namespace(mut self, prefix: &str, uri: &str) -> Self {
        self.namespaces.push((prefix.to_owned(), uri.to_owned()));
        self
    }

    /// Adds an attribute (`prefix:local` or `local`).
    pub fn attribute(mut self, qualified_name: &str, value: &str) -> Self {
        let (prefix, local) = split_name(qualified_name);
        self.attributes.push(Attribute { prefix, local, value: value.to_owned() });
        self
    }

    /// Adds a child element.
    pub fn child(mut self, child: Element) -> Self {
        self.children.push(Node::Element(child));
        self
    }

    /// Adds text.
    pub fn text(mut self, text: &str) -> Self {
        self.children.push(Node::Text(text.to_owned()));
        self
    }

    /// The scope inside this element, given the scope around it.
    pub fn scope_inside(&self, outer: &Scope) -> Scope {
        let mut scope = outer.clone();
        for (prefix, uri) in &self.namespaces {
            scope.insert(prefix.clone(), uri.clone());
        }
        scope
    }

    /// Namespace URI of the element name in `scope` (inside this element).
    pub fn namespace_uri<'a>(&self, scope: &'a Scope) -> &'a str {
        scope.get(self.prefix.as_deref().unwrap_or("")).map_or("", String::as_str)
    }

    /// Child elements.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|node| match node {
            Node::Element(element) => Some(element),
            Node::Text(_) => None,
        })
    }

    /// Concatenated text children.
    pub fn text_content(&self) -> String {
        self.children
            .iter()
            .filter_map(|node| match node {
                Node::Text(text) => Some(text.as_str()),
                Node::Element(_) => None,
            })
            .collect()
    }

    /// Value of the attribute with this local name (any prefix).
    pub fn attribute_value(&self, local: &str) -> Option<&str> {
        self.attributes.iter().find(|attribute| attribute.local == local).map(|attribute| attribute.value.as_str())
    }

    fn qualified_name(&self) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}:{}", self.local),
            None => self.local.clone(),
        }
    }
}

fn split_name(qualified_name: &str) -> (Option<String>, String) {
    match qualified_name.split_once(':') {
        Some((prefix, local)) => (Some(prefix.to_owned()), local.to_owned()),
        None => (None, qualified_name.to_owned()),
    }
}

/// Canonical form of `element` (the apex of the subset) whose surrounding
/// scope is `outer`. `skip` names one descendant left out (the enveloped
/// `Signature`), compared by address.
pub(crate) fn canonicalize(element: &Element, outer: &Scope, mode: C14n, skip: Option<&Element>) -> String {
    let mut out = String::new();
    // Nothing is rendered yet above the apex.
    write_canonical(element, outer, &Scope::new(), mode, skip, true, &mut out);
    out
}

fn write_canonical(
    element: &Element,
    outer: &Scope,
    rendered: &Scope,
    mode: C14n,
    skip: Option<&Element>,
    apex: bool,
    out: &mut String,
) {
    let scope = element.scope_inside(outer);
    // Which declarations to write: (prefix, uri).
    let mut declarations: BTreeMap<String, String> = BTreeMap::new();
    match mode {
        C14n::Inclusive => {
            for (prefix, uri) in &scope {
                if prefix == "xml" {
                    continue;
                }
                let already = rendered.get(prefix).map_or("", String::as_str);
                let differs = if apex { true } else { already != uri };
                if differs && !(uri.is_empty() && already.is_empty()) {
                    declarations.insert(prefix.clone(), uri.clone());
                }
            }
        }
        C14n::Exclusive => {
            let mut used: Vec<&str> = vec![element.prefix.as_deref().unwrap_or("")];
            used.extend(element.attributes.iter().filter_map(|a| a.prefix.as_deref()));
            for prefix in used {
                if prefix == "xml" {
                    continue;
                }
                let uri = scope.get(prefix).map_or("", String::as_str);
                let already = rendered.get(prefix).map_or("", String::as_str);
                let is_rendered = rendered.contains_key(prefix) || (prefix.is_empty() && uri.is_empty());
                if !is_rendered || already != uri {
                    declarations.insert(prefix.to_owned(), uri.to_owned());
                }
            }
        }
    }
    let mut now_rendered = rendered.clone();
    for (prefix, uri) in &declarations {
        now_rendered.insert(prefix.clone(), uri.clone());
    }

    let name = element.qualified_name();
    out.push('<');
    out.push_str(&name);
    for (prefix, uri) in &declarations {
        if prefix.is_empty() {
            out.push_str(" xmlns=\"");
        } else {
            out.push_str(" xmlns:");
            out.push_str(prefix);
            out.push_str("=\"");
        }
        escape_attribute(uri, out);
        out.push('"');
    }
    // Attributes sort by (namespace URI, local name); unqualified ones have no URI.
    let mut attributes: Vec<(&str, &Attribute)> = element
        .attributes
        .iter()
        .map(|attribute| {
            let uri = attribute.prefix.as_deref().and_then(|prefix| scope.get(prefix)).map_or("", String::as_str);
            (uri, attribute)
        })
        .collect();
    attributes.sort_by(|(uri_a, a), (uri_b, b)| (uri_a, &a.local).cmp(&(uri_b, &b.local)));
    for (_, attribute) in attributes {
        out.push(' ');
        if let Some(prefix) = &attribute.prefix {
            out.push_str(prefix);
            out.push(':');
        }
        out.push_str(&attribute.local);
        out.push_str("=\"");
        escape_attribute(&attribute.value, out);
        out.push('"');
    }
    out.push('>');
    for node in &element.children {
        match node {
            Node::Text(text) => escape_text(text, out),
            Node::Element(child) => {
                if skip.is_some_and(|skipped| std::ptr::eq(skipped, child)) {
                    continue;
                }
                write_canonical(child, &scope, &now_rendered, mode, skip, false, out);
            }
        }
    }
    out.push_str("</");
    out.push_str(&name);
    out.push('>');
}

fn escape_text(text: &str, out: &mut String) {
    for character in text.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\r' => out.push_str("&#xD;"),
            other => out.push(other),
        }
    }
}

fn escape_attribute(value: &str, out: &mut String) {
    for character in value.chars() {
        match character {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            other => out.push(other),
        }
    }
}

/// Plain serialization: declarations and attributes as given, empty elements
/// self-closed, no whitespace added.
pub(crate) fn serialize(element: &Element, out: &mut String) {
    let name = element.qualified_name();
    out.push('<');
    out.push_str(&name);
    for (prefix, uri) in &element.namespaces {
        if prefix.is_empty() {
            out.push_str(" xmlns=\"");
        } else {
            out.push_str(" xmlns:");
            out.push_str(prefix);
            out.push_str("=\"");
        }
        escape_attribute(uri, out);
        out.push('"');
    }
    for attribute in &element.attributes {
        out.push(' ');
        if let Some(prefix) = &attribute.prefix {
            out.push_str(prefix);
            out.push(':');
        }
        out.push_str(&attribute.local);
        out.push_str("=\"");
        escape_attribute(&attribute.value, out);
        out.push('"');
    }
    if element.children.is_empty() {
        out.push_str("/>");
        return;
    }
    out.push('>');
    for node in &element.children {
        match node {
            Node::Text(text) => escape_text(text, out),
            Node::Element(child) => serialize(child, out),
        }
    }
    out.push_str("</");
    out.push_str(&name);
    out.push('>');
}

/// Nesting limit of [`parse`]: the tree walks recurse, and SAT's documents
/// are a handful of levels deep.
const MAX_DEPTH: usize = 256;

/// Parses a document into its root element.
pub(crate) fn parse(xml: &str) -> Result<Element, Error> {
    let bad = |what: String| Error::Xml(what);
    let mut reader = quick_xml::Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let event = reader.read_event().map_err(|error| bad(format!("malformed XML: {error}")))?;
        match event {
            Event::Start(_) | Event::Empty(_) if root.is_some() => {
                return Err(bad("content after the root element".into()));
            }
            Event::Start(_) if stack.len() >= MAX_DEPTH => {
                return Err(bad(format!("elements nested deeper than {MAX_DEPTH}")));
            }
            Event::Start(start) => stack.push(element_from(&start)?),
            Event::Empty(start) => {
                let element = element_from(&start)?;
                close(element, &mut stack, &mut root);
            }
            Event::End(_) => {
                let element = stack.pop().ok_or_else(|| bad("unbalanced end tag".into()))?;
                close(element, &mut stack, &mut root);
            }
            Event::Text(text) => {
                let content = text.xml_content(XmlVersion::Implicit1_0);
                push_text(&mut stack, &content)?;
            }
            Event::CData(data) => {
                let content = data.xml_content(XmlVersion::Implicit1_0);
                push_text(&mut stack, &content)?;
            }
            Event::GeneralRef(reference) => {
                let name: String = reference.chars().collect();
                let resolved = if reference.is_char_ref() {
                    reference.resolve_char_ref().ok().flatten().map(String::from)
                } else {
                    quick_xml::escape::resolve_predefined_entity(&name).map(str::to_owned)
                };
                let resolved = resolved.ok_or_else(|| bad(format!("unknown entity &{name};")))?;
                push_text(&mut stack, &resolved)?;
            }
            Event::DocType(_) => return Err(bad("DTDs are not accepted".into())),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err(bad("unclosed element".into()));
    }
    root.ok_or_else(|| bad("no root element".into()))
}

fn push_text(stack: &mut [Element], content: &str) -> Result<(), Error> {
    match stack.last_mut() {
        Some(parent) => {
            if let Some(Node::Text(previous)) = parent.children.last_mut() {
                previous.push_str(content);
            } else {
                parent.children.push(Node::Text(content.to_owned()));
            }
            Ok(())
        }
        None if content.trim().is_empty() => Ok(()),
        None => Err(Error::Xml("text outside the root element".into())),
    }
}

fn close(element: Element, stack: &mut [Element], root: &mut Option<Element>) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(Node::Element(element)),
        None => *root = Some(element),
    }
}

fn element_from(start: &quick_xml::events::BytesStart<'_>) -> Result<Element, Error> {
    let name = start.name().as_ref().to_owned();
    let mut element = Element::new(&name);
    for attribute in start.attributes() {
        let attribute = attribute.map_err(|error| Error::Xml(format!("bad attribute: {error}")))?;
        let key = attribute.key.as_ref().to_owned();
        let value = attribute
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|error| Error::Xml(format!("bad attribute value: {error}")))?
            .into_owned();
        if key == "xmlns" {
            element.namespaces.push((String::new(), value));
        } else if let Some(prefix) = key.strip_prefix("xmlns:") {
            element.namespaces.push((prefix.to_owned(), value));
        } else {
            element = element.attribute(&key, &value);
        }
    }
    Ok(element)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(xml: &str, mode: C14n) -> String {
        canonicalize(&parse(xml).unwrap(), &Scope::new(), mode, None)
    }

    #[test]
    fn attributes_sort_and_empty_elements_expand() {
        let xml = r#"<?xml version="1.0"?><!-- c --><a xmlns="urn:a" z="1" b="&amp;&lt;&quot;" xmlns:p="urn:p" p:c="2"><e/><!-- x -->t&gt;&#x41;</a>"#;
        let expected = r#"<a xmlns="urn:a" xmlns:p="urn:p" b="&amp;&lt;&quot;" z="1" p:c="2"><e></e>t&gt;A</a>"#;
        assert_eq!(canonical(xml, C14n::Inclusive), expected);
        assert_eq!(canonical(xml, C14n::Exclusive), expected);
    }

    #[test]
    fn exclusive_drops_unused_namespaces_inclusive_keeps_them() {
        let xml = r#"<r xmlns:u="urn:u" xmlns:x="urn:x"><u:t u:Id="1"><u:c>v</u:c></u:t></r>"#;
        let root = parse(xml).unwrap();
        let scope = root.scope_inside(&Scope::new());
        let inner = root.elements().next().unwrap();
        assert_eq!(
            canonicalize(inner, &scope, C14n::Exclusive, None),
            r#"<u:t xmlns:u="urn:u" u:Id="1"><u:c>v</u:c></u:t>"#
        );
        assert_eq!(
            canonicalize(inner, &scope, C14n::Inclusive, None),
            r#"<u:t xmlns:u="urn:u" xmlns:x="urn:x" u:Id="1"><u:c>v</u:c></u:t>"#
        );
    }

    #[test]
    fn doctype_and_garbage_are_refused() {
        assert!(parse("<!DOCTYPE x [<!ENTITY e 'x'>]><x>&e;</x>").is_err());
        assert!(parse("<a><b></a>").is_err());
        assert!(parse("").is_err());
        assert!(parse("<a/><b/>").is_err());
        assert!(parse("<a>&nope;</a>").is_err());
    }

    #[test]
    fn deep_nesting_is_refused() {
        let xml = format!("{}{}", "<a>".repeat(300), "</a>".repeat(300));
        assert!(parse(&xml).is_err());
        let xml = format!("{}{}", "<a>".repeat(200), "</a>".repeat(200));
        assert!(parse(&xml).is_ok());
    }

    #[test]
    fn serialization_round_trips() {
        let xml = r#"<s:E xmlns:s="urn:s" a="x&amp;y"><s:B/>text &lt;</s:E>"#;
        let mut out = String::new();
        serialize(&parse(xml).unwrap(), &mut out);
        assert_eq!(out, xml);
    }
}
