/**
 * The yardstick for HeadScope's multi-family engine: tiny checkpoints in each Hugging Face family's own
 * layout and a separately written reference forward pass.
 *
 * <pre>{@code
 * Path dir = TinyFamilyCheckpoint.create("roberta", 42).writeTo(tmp.resolve("roberta"));
 * ReferenceForward.Result ref = ReferenceForward.run(dir, ids);   // ids without padding
 * // run the engine on dir and ids, then e.g.
 * assertThat(ReferenceDiff.maxAbs(ref.attention(), engineMaps)).isLessThan(1e-5);
 * }</pre>
 *
 * <p>How far the yardstick itself is trusted: its BERT path agrees with the TensorFlow-validated engine to
 * about 1e-6 (erf and tanh GELU); RoBERTa, DistilBERT, ELECTRA and ALBERT rebuilt as BERTs run identically
 * ({@code FamilyEquivalenceTest}); GPT-2 is checked on a model worked out on paper; every written name and
 * shape is checked against lists taken from transformers' modeling files.
 */
package io.headscope.model.testing.families;
