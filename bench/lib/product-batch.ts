/** A catalog batch of `products` products with `variants` variants each, as a partner sends it. */
export function productBatch(products: number, variants: number) {
  return {
    products: Array.from({ length: products }, (_, p) => ({
      external_product_id: `p${p}`,
      title: `Product ${p}`,
      category: 'food/coffee',
      source_version: '1',
      variants: Array.from({ length: variants }, (_, v) => ({ external_variant_id: `p${p}v${v}`, price: `${v}.50`, currency: 'EUR' })),
    })),
  };
}
