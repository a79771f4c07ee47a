//! With the feature `ffi`, sys::ffi links libsignalkit-ffi: a signature
//! parsed and read back through the raw functions.
#![cfg(feature = "ffi")]

use std::ffi::CString;
use std::ptr;

use rsignalkit::sys;

#[test]
fn the_ffi_library_links_and_parses_a_signature() {
    let text = CString::new("i64(i64)").unwrap();
    let mut signature = ptr::null_mut();
    // Safety: valid arguments; the signature is released below.
    unsafe {
        assert_eq!(sys::ffi::sk_ffi_signature_parse(&mut signature, text.as_ptr()), sys::SK_OK);
        assert_eq!(sys::ffi::sk_ffi_signature_arg_count(signature), 1);
        assert_eq!(sys::ffi::sk_ffi_signature_result(signature), sys::SK_FFI_INT64);
        sys::ffi::sk_ffi_signature_release(signature);
        assert_eq!(sys::ffi::sk_ffi_live_objects(), 0);
    }
}
