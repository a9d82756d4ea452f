export class DuplicateKeyError extends Error {
    collection;
    id;
    constructor(collection, id) {
        super(`${collection}/${id} already exists`);
        this.collection = collection;
        this.id = id;
        this.name = 'DuplicateKeyError';
    }
}
//# sourceMappingURL=port.js.map