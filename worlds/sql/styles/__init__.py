"""The SEL and SLOT styles of the reference study: toolkits over tables (selectors and getters; generic tools
chaining server-side results) and the gold chains that fit a question's shape."""
