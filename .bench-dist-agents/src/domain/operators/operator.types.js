export {};
//# sourceMappingURL=operator.types.js.map