"""Generated from the billing schema. Do not edit by hand."""
