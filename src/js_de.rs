//! A `JsValue` read as a serde `Deserializer`: serde-wasm-bindgen's (MIT/Apache-2.0, ©
//! Ingvar Stepanyan) for the values `JSON.parse` makes, with the same calls to the browser
//! and the same results and messages, except that its error type writes serde's "invalid
//! type: floating point `1.5`" itself ([`Unexpected`] through [`unexpected`]). serde's own
//! text for it goes through float formatting, and serde-wasm-bindgen's error type uses
//! serde's text, so reading a breaker script would keep core's float printer (about 12 KB
//! of wasm) for error messages alone.
//!
//! Left out, because `JSON.parse` makes none of them: `BigInt`s, byte arrays
//! (`Uint8Array`, `ArrayBuffer`) and serde-wasm-bindgen's preserved values.

use std::fmt::Write;

use serde::de::Unexpected;

/// What serde writes for `unexp` in "invalid type: …" and "invalid value: …"
/// (`Unexpected`'s `Display`), written without float formatting.
pub fn unexpected(unexp: Unexpected) -> String {
    let mut out = String::new();
    let _ = match unexp {
        Unexpected::Bool(b) => write!(out, "boolean `{b}`"),
        Unexpected::Unsigned(i) => write!(out, "integer `{i}`"),
        Unexpected::Signed(i) => write!(out, "integer `{i}`"),
        Unexpected::Float(x) => {
            // serde's `WithDecimalPoint`: `{}`, and `.0` after a finite number without a
            // point (`{}` never writes an exponent).
            out.push_str("floating point `");
            let start = out.len();
            resilience_sim::number::push_f64(&mut out, x);
            if x.is_finite() && !out[start..].contains('.') {
                out.push_str(".0");
            }
            out.push('`');
            Ok(())
        }
        Unexpected::Char(c) => write!(out, "character `{c}`"),
        Unexpected::Str(s) => write!(out, "string {s:?}"),
        Unexpected::Bytes(_) => out.write_str("byte array"),
        Unexpected::Unit => out.write_str("unit value"),
        Unexpected::Option => out.write_str("Option value"),
        Unexpected::NewtypeStruct => out.write_str("newtype struct"),
        Unexpected::Seq => out.write_str("sequence"),
        Unexpected::Map => out.write_str("map"),
        Unexpected::Enum => out.write_str("enum"),
        Unexpected::UnitVariant => out.write_str("unit variant"),
        Unexpected::NewtypeVariant => out.write_str("newtype variant"),
        Unexpected::TupleVariant => out.write_str("tuple variant"),
        Unexpected::StructVariant => out.write_str("struct variant"),
        Unexpected::Other(other) => out.write_str(other),
    };
    out
}

/// The deserializer of [`from_value`] and its error.
#[cfg(target_arch = "wasm32")]
mod js {
    use js_sys::{Array, JsString, Map, Number, Object, Symbol};
    use serde::de::value::{MapDeserializer, SeqDeserializer};
    use serde::de::{self, IntoDeserializer, Unexpected};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::{JsCast, JsValue, UnwrapThrowExt};

    type Result<T> = std::result::Result<T, Error>;

    /// serde-wasm-bindgen's error: a JavaScript `Error` (or a thrown value), shown as
    /// JavaScript's `String(value)` shows it.
    #[derive(Debug)]
    pub struct Error(JsValue);

    #[wasm_bindgen]
    extern "C" {
        #[wasm_bindgen(js_name = String)]
        fn js_string(value: &JsValue) -> String;

        type ObjectExt;

        #[wasm_bindgen(method, indexing_getter)]
        fn get_with_ref_key(this: &ObjectExt, key: &JsString) -> JsValue;
    }

    impl std::fmt::Display for Error {
        fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            std::fmt::Display::fmt(&js_string(&self.0), f)
        }
    }

    impl std::error::Error for Error {}

    impl de::Error for Error {
        fn custom<T: std::fmt::Display>(msg: T) -> Self {
            Error(JsError::new(&msg.to_string()).into())
        }

        fn invalid_type(unexp: Unexpected, exp: &dyn de::Expected) -> Self {
            Error::custom(format_args!(
                "invalid type: {}, expected {}",
                super::unexpected(unexp),
                exp
            ))
        }

        fn invalid_value(unexp: Unexpected, exp: &dyn de::Expected) -> Self {
            Error::custom(format_args!(
                "invalid value: {}, expected {}",
                super::unexpected(unexp),
                exp
            ))
        }
    }

    impl From<JsValue> for Error {
        fn from(error: JsValue) -> Error {
            Error(error)
        }
    }

    /// `T` read from `value` (as `serde_wasm_bindgen::from_value`).
    pub fn from_value<T: serde::de::DeserializeOwned>(value: JsValue) -> Result<T> {
        T::deserialize(Deserializer { value })
    }

    /// [`de::SeqAccess`] from any JS iterator.
    struct SeqAccess {
        iter: js_sys::IntoIter,
    }

    impl<'de> de::SeqAccess<'de> for SeqAccess {
        type Error = Error;

        fn next_element_seed<T: de::DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>> {
            Ok(match self.iter.next().transpose()? {
                Some(value) => Some(seed.deserialize(Deserializer::from(value))?),
                None => None,
            })
        }
    }

    /// [`de::MapAccess`] from any JS iterator of `[key, value]` pairs.
    struct MapAccess {
        iter: js_sys::IntoIter,
        next_value: Option<Deserializer>,
    }

    impl<'de> de::MapAccess<'de> for MapAccess {
        type Error = Error;

        fn next_key_seed<K: de::DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>> {
            Ok(match self.iter.next().transpose()? {
                Some(pair) => {
                    let (key, value) = convert_pair(pair);
                    self.next_value = Some(value);
                    Some(seed.deserialize(key)?)
                }
                None => None,
            })
        }

        fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
            seed.deserialize(self.next_value.take().unwrap_throw())
        }
    }

    /// A struct's fields read from a JS object, in the struct's order.
    struct ObjectAccess {
        obj: ObjectExt,
        fields: std::slice::Iter<'static, &'static str>,
        next_value: Option<Deserializer>,
    }

    fn str_deserializer(s: &str) -> de::value::StrDeserializer<'_, Error> {
        de::IntoDeserializer::into_deserializer(s)
    }

    impl<'de> de::MapAccess<'de> for ObjectAccess {
        type Error = Error;

        fn next_key_seed<K: de::DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>> {
            for field in &mut self.fields {
                let js_field = JsString::from(*field);
                let next_value = self.obj.get_with_ref_key(&js_field);
                // `undefined` may be a missing field: `in` tells.
                let is_missing_field = next_value.is_undefined() && !js_field.js_in(&self.obj);
                if !is_missing_field {
                    self.next_value = Some(Deserializer::from(next_value));
                    return Ok(Some(seed.deserialize(str_deserializer(field))?));
                }
            }
            Ok(None)
        }

        fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
            seed.deserialize(self.next_value.take().unwrap_throw())
        }
    }

    /// [`de::EnumAccess`] from the JS values of the tag and the payload.
    struct EnumAccess {
        tag: Deserializer,
        payload: Deserializer,
    }

    impl<'de> de::EnumAccess<'de> for EnumAccess {
        type Error = Error;
        type Variant = Deserializer;

        fn variant_seed<V: de::DeserializeSeed<'de>>(
            self,
            seed: V,
        ) -> Result<(V::Value, Self::Variant)> {
            Ok((seed.deserialize(self.tag)?, self.payload))
        }
    }

    /// Any [`JsValue`] as a [`de::Deserializer`].
    pub struct Deserializer {
        value: JsValue,
    }

    impl From<JsValue> for Deserializer {
        fn from(value: JsValue) -> Self {
            Self { value }
        }
    }

    impl<'de> IntoDeserializer<'de, Error> for Deserializer {
        type Deserializer = Self;

        fn into_deserializer(self) -> Self::Deserializer {
            self
        }
    }

    /// A JS `[key, value]` pair as two [`Deserializer`]s.
    fn convert_pair(pair: JsValue) -> (Deserializer, Deserializer) {
        let pair = pair.unchecked_into::<Array>();
        (pair.get(0).into(), pair.get(1).into())
    }

    impl Deserializer {
        fn as_object_entries(&self) -> Option<Array> {
            if self.value.is_object() {
                Some(Object::entries(self.value.unchecked_ref()))
            } else {
                None
            }
        }

        fn is_nullish(&self) -> bool {
            self.value.loose_eq(&JsValue::NULL)
        }

        #[cold]
        fn invalid_type_(&self, visitor: &dyn de::Expected) -> Error {
            let string;
            let unexpected = if self.is_nullish() {
                Unexpected::Unit
            } else if let Some(v) = self.value.as_bool() {
                Unexpected::Bool(v)
            } else if let Some(v) = self.value.as_f64() {
                Unexpected::Float(v)
            } else if let Some(v) = self.value.as_string() {
                string = v;
                Unexpected::Str(&string)
            } else {
                string = format!("{:?}", self.value);
                Unexpected::Other(&string)
            };
            de::Error::invalid_type(unexpected, visitor)
        }

        fn invalid_type<'de, V: de::Visitor<'de>>(&self, visitor: V) -> Result<V::Value> {
            Err(self.invalid_type_(&visitor))
        }

        fn as_safe_integer(&self) -> Option<i64> {
            if Number::is_safe_integer(&self.value) {
                return Some(self.value.unchecked_into_f64() as i64);
            }
            None
        }

        fn deserialize_from_js_number_signed<'de, V: de::Visitor<'de>>(
            &self,
            visitor: V,
        ) -> Result<V::Value> {
            match self.as_safe_integer() {
                Some(v) => visitor.visit_i64(v),
                _ => self.invalid_type(visitor),
            }
        }

        fn deserialize_from_js_number_unsigned<'de, V: de::Visitor<'de>>(
            &self,
            visitor: V,
        ) -> Result<V::Value> {
            match self.as_safe_integer() {
                Some(v) if v >= 0 => visitor.visit_u64(v as _),
                _ => self.invalid_type(visitor),
            }
        }

        fn deserialize_from_array<'de, V: de::Visitor<'de>>(
            &self,
            visitor: V,
            array: &Array,
        ) -> Result<V::Value> {
            visitor.visit_seq(SeqDeserializer::new(array.iter().map(Deserializer::from)))
        }
    }

    impl<'de> de::Deserializer<'de> for Deserializer {
        type Error = Error;

        fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.is_nullish() {
                visitor.visit_unit()
            } else if let Some(v) = self.value.as_bool() {
                visitor.visit_bool(v)
            } else if let Some(v) = self.value.as_f64() {
                if Number::is_safe_integer(&self.value) {
                    visitor.visit_i64(v as i64)
                } else {
                    visitor.visit_f64(v)
                }
            } else if let Some(v) = self.value.as_string() {
                visitor.visit_string(v)
            } else if Array::is_array(&self.value) {
                self.deserialize_seq(visitor)
            } else if self.value.is_object()
                && (!Symbol::iterator().js_in(&self.value) || self.value.has_type::<Map>())
            {
                self.deserialize_map(visitor)
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_unit<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if self.is_nullish() {
                visitor.visit_unit()
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_unit_struct<V: de::Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value> {
            self.deserialize_unit(visitor)
        }

        fn deserialize_bool<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(v) = self.value.as_bool() {
                visitor.visit_bool(v)
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_f64(visitor)
        }

        fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(v) = self.value.as_f64() {
                visitor.visit_f64(v)
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_identifier<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_str<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_string(visitor)
        }

        fn deserialize_string<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(v) = self.value.as_string() {
                visitor.visit_string(v)
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_i8<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_signed(visitor)
        }

        fn deserialize_i16<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_signed(visitor)
        }

        fn deserialize_i32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_signed(visitor)
        }

        fn deserialize_i64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_signed(visitor)
        }

        fn deserialize_u8<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_unsigned(visitor)
        }

        fn deserialize_u16<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_unsigned(visitor)
        }

        fn deserialize_u32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_unsigned(visitor)
        }

        fn deserialize_u64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_from_js_number_unsigned(visitor)
        }

        fn deserialize_i128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.invalid_type(visitor)
        }

        fn deserialize_u128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.invalid_type(visitor)
        }

        fn deserialize_char<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(s) = self.value.dyn_ref::<JsString>() {
                if let Some(c) = s.as_char() {
                    return visitor.visit_char(c);
                }
            }
            self.invalid_type(visitor)
        }

        /// `null` (or `undefined`) is `None`, any other value `Some(value)`.
        fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if !self.is_nullish() {
                visitor.visit_some(self)
            } else {
                visitor.visit_none()
            }
        }

        fn deserialize_newtype_struct<V: de::Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value> {
            visitor.visit_newtype_struct(self)
        }

        /// An array, or any JS iterable.
        fn deserialize_seq<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(arr) = self.value.dyn_ref::<Array>() {
                self.deserialize_from_array(visitor, arr)
            } else if let Some(iter) = js_sys::try_iter(&self.value)? {
                visitor.visit_seq(SeqAccess { iter })
            } else {
                self.invalid_type(visitor)
            }
        }

        fn deserialize_tuple<V: de::Visitor<'de>>(
            self,
            _len: usize,
            visitor: V,
        ) -> Result<V::Value> {
            self.deserialize_seq(visitor)
        }

        fn deserialize_tuple_struct<V: de::Visitor<'de>>(
            self,
            _name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value> {
            self.deserialize_tuple(len, visitor)
        }

        /// A JS iterable of `[key, value]` pairs, or an object's entries.
        fn deserialize_map<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match js_sys::try_iter(&self.value)? {
                Some(iter) => visitor.visit_map(MapAccess {
                    iter,
                    next_value: None,
                }),
                None => match self.as_object_entries() {
                    Some(arr) => {
                        visitor.visit_map(MapDeserializer::new(arr.iter().map(convert_pair)))
                    }
                    None => self.invalid_type(visitor),
                },
            }
        }

        /// A plain JS object, read field by field.
        fn deserialize_struct<V: de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value> {
            let obj = if self.value.is_object() {
                self.value.unchecked_into::<ObjectExt>()
            } else {
                return self.invalid_type(visitor);
            };
            visitor.visit_map(ObjectAccess {
                obj,
                fields: fields.iter(),
                next_value: None,
            })
        }

        /// `"Variant"` (a unit variant) or `{ "Variant": payload }`, as serde_json.
        fn deserialize_enum<V: de::Visitor<'de>>(
            self,
            _name: &'static str,
            _variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value> {
            let access = if self.value.is_string() {
                EnumAccess {
                    tag: self.value.into(),
                    payload: JsValue::UNDEFINED.into(),
                }
            } else if let Some(entries) = self.as_object_entries() {
                if entries.length() != 1 {
                    return Err(de::Error::invalid_length(entries.length() as _, &"1"));
                }
                let entry = entries.get(0);
                let (tag, payload) = convert_pair(entry);
                EnumAccess { tag, payload }
            } else {
                return self.invalid_type(visitor);
            };
            visitor.visit_enum(access)
        }

        fn deserialize_ignored_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            visitor.visit_unit()
        }

        fn deserialize_bytes<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.deserialize_byte_buf(visitor)
        }

        /// An array of numbers (`JSON.parse` makes no byte arrays).
        fn deserialize_byte_buf<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Some(arr) = self.value.dyn_ref::<Array>() {
                self.deserialize_from_array(visitor, arr)
            } else {
                self.invalid_type(visitor)
            }
        }

        fn is_human_readable(&self) -> bool {
            true
        }
    }

    impl<'de> de::VariantAccess<'de> for Deserializer {
        type Error = Error;

        fn unit_variant(self) -> Result<()> {
            de::Deserialize::deserialize(self)
        }

        fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
            seed.deserialize(self)
        }

        fn tuple_variant<V: de::Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
            de::Deserializer::deserialize_tuple(self, len, visitor)
        }

        fn struct_variant<V: de::Visitor<'de>>(
            self,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value> {
            de::Deserializer::deserialize_struct(self, "", fields, visitor)
        }
    }
}

#[cfg(target_arch = "wasm32")]
pub use js::{from_value, Deserializer, Error};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unexpected_values_read_as_serde_writes_them() {
        let mut floats = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1.5,
            2.5,
            50.0,
            1e15,
            1e16,
            1e21,
            1e22,
            1e-7,
            5e-324,
            0.1 + 0.2,
            1.0 / 3.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            -f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            9007199254740993.0,
        ];
        floats.extend((0..2_000).map(|i| f64::from(i) / 7.0 - 100.0));
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            floats.push(f64::from_bits(state));
        }
        let check = |u: Unexpected| assert_eq!(unexpected(u), u.to_string());
        for x in floats {
            check(Unexpected::Float(x));
        }
        for b in [true, false] {
            check(Unexpected::Bool(b));
        }
        for i in [0, 1, 42, u64::MAX] {
            check(Unexpected::Unsigned(i));
        }
        for i in [0, -1, 42, i64::MIN, i64::MAX] {
            check(Unexpected::Signed(i));
        }
        for c in ['a', '"', '\n', 'é', '\u{0}'] {
            check(Unexpected::Char(c));
        }
        for s in [
            "",
            "x",
            "a \"quoted\" word",
            "tab\tnew\nline",
            "é\u{7f}\u{200b}",
        ] {
            check(Unexpected::Str(s));
            check(Unexpected::Other(s));
        }
        for u in [
            Unexpected::Bytes(b"ab"),
            Unexpected::Unit,
            Unexpected::Option,
            Unexpected::NewtypeStruct,
            Unexpected::Seq,
            Unexpected::Map,
            Unexpected::Enum,
            Unexpected::UnitVariant,
            Unexpected::NewtypeVariant,
            Unexpected::TupleVariant,
            Unexpected::StructVariant,
        ] {
            check(u);
        }
    }
}
