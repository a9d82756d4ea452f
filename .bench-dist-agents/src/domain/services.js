export {};
//# sourceMappingURL=services.js.map